/*
 * sbrun.c -- run a command under sandbox rules built by hand, one layer
 * or all (the sandbox tests: each layer must hold on its own).
 *
 *   sbrun [-l LAYERS] [-r PATH] [-x PATH] [-w PATH] [-n none|any|PORTS]
 *         [-u] [-U] [-P] [-q] -- COMMAND [ARG...]
 *
 *   -l  landlock, seccomp, netns, nnp, or all (the default), comma-separated
 *   -r, -x, -w  grant PATH read, read+execute, read+write (Landlock)
 *   -n  none (seccomp refuses inet sockets; with netns a namespace of its
 *       own), any (the default), or ports: 443,5432 (Landlock TCP)
 *   -u  socket(AF_UNIX) allowed; -U user namespaces allowed; -P ptrace
 *   -q  required: refuse to run if an asked layer is missing
 *
 * It says on stderr what held ("sbrun: landlock 7: files; seccomp").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox.h"
#include "sbapply.h"

static struct sb_grant	grants[SB_GRANTS_MAX];

static unsigned int
parse_layers(char *s)
{
	unsigned int	 layers = 0;
	char		*w;

	while ((w = strsep(&s, ",")) != NULL) {
		if (strcmp(w, "landlock") == 0)
			layers |= SB_HELD_LANDLOCK_FS;
		else if (strcmp(w, "seccomp") == 0)
			layers |= SB_HELD_SECCOMP;
		else if (strcmp(w, "netns") == 0)
			layers |= SB_HELD_NETNS | SB_HELD_USERNS;
		else if (strcmp(w, "nnp") == 0)
			layers |= SB_HELD_NNP;
		else if (strcmp(w, "all") == 0)
			layers |= SB_HELD_LAYERS;
		else {
			fprintf(stderr, "sbrun: unknown layer %s\n", w);
			exit(2);
		}
	}
	return (layers);
}

static void
parse_net(struct sb_rules *r, char *s)
{
	char	*w;

	if (strcmp(s, "none") == 0) {
		r->net = SB_NET_NONE;
		r->netns = 1;
	} else if (strcmp(s, "any") == 0)
		r->net = SB_NET_ANY;
	else {
		r->net = SB_NET_PORTS;
		while ((w = strsep(&s, ",")) != NULL &&
		    r->nports < SB_PORTS_MAX)
			r->ports[r->nports++] = (uint16_t)atoi(w);
	}
}

static void
grant(struct sb_rules *r, char *path, unsigned int access)
{
	if (r->ngrants == SB_GRANTS_MAX) {
		fprintf(stderr, "sbrun: too many grants\n");
		exit(2);
	}
	grants[r->ngrants].path = path;
	grants[r->ngrants].access = access;
	grants[r->ngrants].optional = 1;
	grants[r->ngrants++].why = "read";
}

int
main(int argc, char *argv[])
{
	struct sb_rules		 r;
	struct sb_prepared	 p;
	unsigned int		 layers = SB_HELD_LAYERS, held;
	char			*err, desc[128];
	int			 ch, rv;

	memset(&r, 0, sizeof r);
	r.on = 1;
	r.grants = grants;
	while ((ch = getopt(argc, argv, "l:r:x:w:n:uUPq")) != -1) {
		switch (ch) {
		case 'l': layers = parse_layers(optarg); break;
		case 'r': grant(&r, optarg, SB_READ); break;
		case 'x': grant(&r, optarg, SB_READ | SB_EXEC); break;
		case 'w': grant(&r, optarg, SB_READ | SB_WRITE); break;
		case 'n': parse_net(&r, optarg); break;
		case 'u': r.unix_sockets = 1; break;
		case 'U': r.userns = 1; break;
		case 'P': r.ptrace = 1; break;
		case 'q': r.required = 1; break;
		default: return (2);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: sbrun [options] -- command\n");
		return (2);
	}
	if (sb_prepare(&r, &p, &err) == -1) {
		fprintf(stderr, "sbrun: %s\n", err);
		return (2);
	}
	p.layers = layers;
	rv = sb_apply(&p, &held);
	sb_held_describe(held, desc, sizeof desc);
	fprintf(stderr, "sbrun: %s\n", desc);
	if (rv == -1 && (r.required || (held & SB_HELD_BROKEN))) {
		fprintf(stderr, "sbrun: sandbox_required: %s\n",
		    sb_missing_describe(&p, held, errno));
		return (3);
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "sbrun: %s: %s\n", argv[optind], strerror(errno));
	return (127);
}
