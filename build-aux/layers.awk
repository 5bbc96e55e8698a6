# layers.awk -- check-layers' judge: the declaration (build-aux/layers)
# against the calls nm found.  Run by check-layers only; reads
#   1. the declaration: max-lines, long, program, max-cycle, layer, up, cycle
#      (build-aux/layers says what each means);
#   2. check-layers' lines: "D prog file sym" (defined), "U prog file sym"
#      (used), "L lines file" (a production file's length).
# Prints FAIL lines (exit 1) and notes, and unless quiet the figures.

function fail(msg) { print "FAIL: layers: " msg; failed = 1 }
function note(msg) { print "note: layers: " msg }
function cfile(f) { return f ".c" }

# The rank of file f (with .c) in program p: exact names first, then the
# longest glob ("dir/name*") that matches; 0 if none.
function rank(p, f,    k, best, blen, pre) {
	if ((p, f) in exact)
		return exact[p, f]
	best = 0; blen = -1
	for (k = 1; k <= nglob[p]; k++) {
		pre = globpre[p, k]
		if (substr(f, 1, length(pre)) == pre && length(pre) > blen) {
			best = globrank[p, k]; blen = length(pre)
		}
	}
	return best
}

# Whether file f (with .c) is in listed cycle c of program p; marks the
# pattern that holds it as used.
function cycin(p, c, f,    k, pat) {
	for (k = 1; k <= cycsize[p, c]; k++) {
		pat = cycpat[p, c, k]
		if (pat == f || (pat ~ /\*$/ && \
		    substr(f, 1, length(pat) - 1) == substr(pat, 1, length(pat) - 1))) {
			cycused[p, c, k] = 1
			return 1
		}
	}
	return 0
}

# Tarjan's strongly connected components over succ[] (one program).
function scc(v,    ws, n, i, w, comp, size) {
	tix[v] = tlow[v] = ++tcount
	tstack[++tsp] = v; tonst[v] = 1
	n = split(succ[v], ws, " ")
	for (i = 1; i <= n; i++) {
		w = ws[i]
		if (!(w in tix)) {
			scc(w)
			if (tlow[w] < tlow[v]) tlow[v] = tlow[w]
		} else if (tonst[w] && tix[w] < tlow[v])
			tlow[v] = tix[w]
	}
	if (tlow[v] != tix[v])
		return
	comp = ""; size = 0
	do {
		w = tstack[tsp--]; tonst[w] = 0
		comp = comp " " w; size++
	} while (w != v)
	if (size > 1)
		{ ncomp++; comps[ncomp] = sortwords(substr(comp, 2)); compsize[ncomp] = size }
}

function sortwords(s,    a, n, i, j, t, out) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	out = a[1]
	for (i = 2; i <= n; i++) out = out " " a[i]
	return out
}

# The calls that hold file set m (space separated) together with the rest
# of the component c, as "a.c calls f (b.c)"; all of c's calls if m is "".
function calls_in(p, c, m,    cm, mm, ml, n, i, j, a, b, out) {
	n = split(c, cm, " ")
	split("", mm)
	if (m != "") { split(m, ml, " "); for (i in ml) mm[ml[i]] = 1 }
	out = ""; cnt = 0
	for (i = 1; i <= n; i++)
		for (j = 1; j <= n; j++) {
			a = cm[i]; b = cm[j]
			if (a == b || !((p, a, b) in esym)) continue
			if (m != "" && !(a in mm) && !(b in mm)) continue
			out = out "\n    " cfile(a) " calls " esym[p, a, b] " (" cfile(b) ")"
		}
	return out
}

# The declaration.
FILENAME == decl {
	sub(/#.*/, "")
	if (sub(/\\[ \t]*$/, "")) { cont = cont $0 " "; next }
	$0 = cont $0; cont = ""
	if (NF == 0) next
	if ($1 == "max-lines") { maxlines = $2; next }
	if ($1 == "long") { longok[$2] = 1; nlong++; longs[nlong] = $2; next }
	if ($1 == "program") {
		prog = $2; progs[++nprog] = prog; nlayer = 0; maxcyc[prog] = 1
		next
	}
	if (prog == "") { fail(decl ":" FNR ": \"" $1 "\" before any program"); next }
	if ($1 == "max-cycle") { maxcyc[prog] = $2; next }
	if ($1 == "layer") {
		nlayer++
		for (i = 2; i <= NF; i++) {
			if ($i ~ /\*$/) {
				k = ++nglob[prog]
				globpre[prog, k] = substr($i, 1, length($i) - 1)
				globrank[prog, k] = nlayer
			} else
				exact[prog, $i] = nlayer
		}
		next
	}
	if ($1 == "up") {
		nup[prog]++; ups[prog, nup[prog]] = $2 " " $3 " " $4
		next
	}
	if ($1 == "cycle") {
		c = ++ncyc[prog]
		cycsize[prog, c] = NF - 1
		for (i = 2; i <= NF; i++) cycpat[prog, c, i - 1] = $i
		next
	}
	fail(decl ":" FNR ": unknown line \"" $0 "\"")
	next
}

$1 == "D" { def[$2, $4] = $3; files[$2, $3] = 1; next }
$1 == "U" { nuse++; use[nuse] = $2 " " $3 " " $4; files[$2, $3] = 1; next }
$1 == "L" { nlen++; lenfile[nlen] = $3; lenlines[nlen] = $2 + 0; next }

END {
	# Every file has a layer.
	for (k in files) {
		split(k, a, SUBSEP)
		if (!rank(a[1], cfile(a[2])))
			fail(cfile(a[2]) " is in no layer of program " a[1] \
			    " (" decl ": add it to a layer line)")
	}

	# A listed call up a layer is known by its caller's layer and its
	# function: it stays known when either file is split within its layer.
	for (pi = 1; pi <= nprog; pi++) {
		p = progs[pi]
		for (i = 1; i <= nup[p]; i++) {
			split(ups[p, i], a, " ")
			upok[p, rank(p, a[1]), a[3]] = 1
		}
	}

	# The calls between files, and the ones up a layer.
	for (i = 1; i <= nuse; i++) {
		split(use[i], a, " ")
		p = a[1]; from = a[2]; sym = a[3]
		if (!((p, sym) in def)) continue
		to = def[p, sym]
		if (to == from) continue
		if (!((p, from, to) in esym))
			esym[p, from, to] = sym
		else if (length(esym[p, from, to]) < 60 && \
		    index(" " esym[p, from, to] ", ", " " sym ", ") == 0)
			esym[p, from, to] = esym[p, from, to] ", " sym
		if (!((p, from, to) in edge)) {
			edge[p, from, to] = 1
			succ_all[p, from] = succ_all[p, from] " " to
		}
		rf = rank(p, cfile(from)); rt = rank(p, cfile(to))
		if (!rf || !rt || rf <= rt) continue
		key = p SUBSEP cfile(from) SUBSEP cfile(to) SUBSEP sym
		if (key in upseen) continue
		upseen[key] = 1
		nupcalls[p]++
		upknown[p, rf, sym] = 1
		if (!((p, rf, sym) in upok))
			fail(p ": " cfile(from) " calls " sym " (" cfile(to) \
			    "), a layer up (" rf " calls " rt "); turn it into a callback" \
			    " the upper layer supplies, or move the function down" \
			    "\n    up " cfile(from) " " cfile(to) " " sym)
	}
	for (pi = 1; pi <= nprog; pi++) {
		p = progs[pi]
		for (i = 1; i <= nup[p]; i++) {
			split(ups[p, i], a, " ")
			if (!((p, rank(p, a[1]), a[3]) in upknown))
				note(p ": listed call up a layer no longer made, remove it from " \
				    decl ": up " ups[p, i])
		}
	}

	# Cycles, per program.  A cycle of src/ files alone is libmcpd's.
	for (pi = 1; pi <= nprog; pi++) {
		p = progs[pi]
		split("", succ); split("", tix); split("", tlow); split("", tonst)
		split("", comps); split("", compsize)
		tcount = 0; tsp = 0; ncomp = 0
		for (k in files) {
			split(k, a, SUBSEP)
			if (a[1] == p) succ[a[2]] = succ_all[p, a[2]]
		}
		for (v in succ)
			if (!(v in tix)) scc(v)
		largest[p] = 0; largesttext[p] = ""
		split("", cycheld)
		for (ci = 1; ci <= ncomp; ci++) {
			n = split(comps[ci], cm, " ")
			onlysrc = 1
			for (i = 1; i <= n; i++) if (cm[i] !~ /^src\//) onlysrc = 0
			if (onlysrc && p != "libmcpd") continue
			if (n > largest[p]) {
				largest[p] = n; largesttext[p] = comps[ci]
				gsub(/ /, ".c ", largesttext[p]); largesttext[p] = largesttext[p] ".c"
			}
			# The listed cycle that holds it, or overlaps it most.
			held = 0; over = 0; overc = 0
			for (c = 1; c <= ncyc[p]; c++) {
				in_ = 0
				for (i = 1; i <= n; i++) if (cycin(p, c, cfile(cm[i]))) in_++
				if (in_ == n) { held = c; cycheld[c] = 1; break }
				if (in_ > over) { over = in_; overc = c }
			}
			if (n <= maxcyc[p] || held) continue
			if (overc) {
				extra = ""; extrac = ""
				for (i = 1; i <= n; i++)
					if (!cycin(p, overc, cfile(cm[i]))) {
						extra = extra " " cm[i]; extrac = extrac " " cfile(cm[i])
					}
				cycheld[overc] = 1	# grown, not gone: no note
				fail(p ": a cycle of " n " files, larger than max-cycle " maxcyc[p] \
				    ", grew beyond the listed one (" cycsize[p, overc] " files) by" \
				    extrac "; the calls that joined it:" calls_in(p, comps[ci], extra))
			} else
				fail(p ": a new cycle of " n " files, larger than max-cycle " \
				    maxcyc[p] ": " comps[ci] "; its calls:" calls_in(p, comps[ci], ""))
		}
		for (c = 1; c <= ncyc[p]; c++) {
			if (!cycheld[c]) {
				note(p ": the listed cycle of " cycsize[p, c] " no longer occurs" \
				    "; remove its line from " decl)
				continue
			}
			gone = ""
			for (k = 1; k <= cycsize[p, c]; k++)
				if (!((p, c, k) in cycused)) gone = gone " " cycpat[p, c, k]
			if (gone != "")
				note(p ": no longer in the listed cycle:" gone \
				    "; remove them from its line in " decl)
		}
	}

	# Production files' lengths.
	for (i = 1; i <= nlen; i++) {
		f = lenfile[i]; seenlen[f] = lenlines[i]
		if (lenlines[i] > maxlines && !(f in longok))
			fail(f " has " lenlines[i] " lines, over max-lines " maxlines \
			    ": split it along its jobs")
	}
	for (i = 1; i <= nlong; i++)
		if (!(longs[i] in seenlen) || seenlen[longs[i]] <= maxlines)
			note(longs[i] " is no longer over " maxlines " lines; remove its \"long\" line from " decl)

	if (!quiet) {
		for (pi = 1; pi <= nprog; pi++) {
			p = progs[pi]
			print "layers: " p ": calls up a layer " (nupcalls[p] + 0) \
			    ", largest cycle " (largest[p] ? largest[p] " files: " largesttext[p] : "none")
		}
		# The largest files, longest first.
		for (i = 1; i <= nlen; i++) ord[i] = i
		for (i = 2; i <= nlen; i++)
			for (j = i; j > 1 && lenlines[ord[j - 1]] < lenlines[ord[j]]; j--) {
				t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t
			}
		printf "layers: the largest production files:"
		for (i = 1; i <= nlen && i <= 10; i++)
			printf " %s %d%s", lenfile[ord[i]], lenlines[ord[i]], i < 10 && i < nlen ? "," : ""
		print ""
	}
	exit failed
}
