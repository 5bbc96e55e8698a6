/*
 * test_pversion.c -- unit tests for the MCP revisions mcpd speaks with
 * clients (src/pversion.c): names and negotiation, what each revision
 * has, what a client declared it can be asked, what a server's request
 * needs, the initialize result each revision gets, and the content
 * blocks and elicitation forms an older client is sent instead.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "proto.h"
#include "pversion.h"
#include "rpc.h"
#include "unit.h"
#include "xmalloc.h"

/* text converted for v, printed back (or "unchanged"); the caller frees. */
static char *
converted(const char *method, const char *text, enum pversion v)
{
	char	*out;
	size_t	 len;

	out = pversion_convert_text(text, strlen(text), method, v, 1 << 20,
	    &len);
	if (out == NULL)
		return (xstrdup("unchanged"));
	ck_assert_uint_eq(len, strlen(out));
	return (out);
}

static cJSON *
parse(const char *text)
{
	cJSON	*o;

	o = cJSON_Parse(text);
	ck_assert_ptr_nonnull(o);
	return (o);
}

START_TEST(test_pversion_names)
{
	static const char *accepted[] = MCPD_MCP_VERSIONS_ACCEPTED;
	enum pversion	 v;
	size_t		 i;

	for (i = 0; i < PVERSION_COUNT; i++) {
		ck_assert_int_eq(pversion_parse(pversion_name(i), &v), 0);
		ck_assert_int_eq(v, (int)i);
	}
	ck_assert_str_eq(pversion_name(PVERSION_2025_03_26), "2025-03-26");
	ck_assert_int_eq(pversion_parse("2024-10-07", &v), -1);
	ck_assert_int_eq(pversion_parse("", &v), -1);
	ck_assert_int_eq(pversion_parse(NULL, &v), -1);
	/* The one asked for if mcpd speaks it, else the newest. */
	ck_assert_int_eq(pversion_negotiate("2025-06-18"), PVERSION_2025_06_18);
	ck_assert_int_eq(pversion_negotiate("2024-11-05"), PVERSION_2024_11_05);
	ck_assert_int_eq(pversion_negotiate("2024-10-07"), PVERSION_NEWEST);
	ck_assert_int_eq(pversion_negotiate("2099-01-01"), PVERSION_NEWEST);
	ck_assert_int_eq(pversion_negotiate(NULL), PVERSION_NEWEST);
	/* The one mcpd offers servers, the ones it accepts: the same. */
	ck_assert_str_eq(pversion_name(PVERSION_NEWEST), MCPD_MCP_VERSION);
	for (i = 0; accepted[i] != NULL; i++)
		ck_assert_int_eq(pversion_parse(accepted[i], &v), 0);
	ck_assert_uint_eq(i, PVERSION_COUNT);
}
END_TEST

START_TEST(test_pversion_has)
{
	ck_assert(!pversion_has(PVERSION_2024_11_05, PVERSION_AUDIO));
	ck_assert(pversion_has(PVERSION_2025_03_26, PVERSION_AUDIO));
	ck_assert(!pversion_has(PVERSION_2024_11_05, PVERSION_COMPLETIONS));
	ck_assert(pversion_has(PVERSION_2025_03_26, PVERSION_COMPLETIONS));
	/* Batches came and went. */
	ck_assert(!pversion_has(PVERSION_2024_11_05, PVERSION_BATCH));
	ck_assert(pversion_has(PVERSION_2025_03_26, PVERSION_BATCH));
	ck_assert(!pversion_has(PVERSION_2025_06_18, PVERSION_BATCH));
	ck_assert(!pversion_has(PVERSION_2025_11_25, PVERSION_BATCH));
	ck_assert(!pversion_has(PVERSION_2025_03_26, PVERSION_RESOURCE_LINK));
	ck_assert(pversion_has(PVERSION_2025_06_18, PVERSION_RESOURCE_LINK));
	ck_assert(pversion_has(PVERSION_2025_06_18, PVERSION_ELICITATION));
	ck_assert(!pversion_has(PVERSION_2025_06_18, PVERSION_TASKS));
	ck_assert(pversion_has(PVERSION_2025_11_25, PVERSION_TASKS));
	ck_assert(!pversion_has(PVERSION_2025_06_18, PVERSION_ELICIT_URL));
	ck_assert(pversion_has(PVERSION_2025_11_25, PVERSION_SAMPLING_TOOLS));
	ck_assert(!pversion_has(PVERSION_2025_11_25, PVERSION_FEATURES));
}
END_TEST

static unsigned int
can(const char *caps, enum pversion v)
{
	cJSON		*o = parse(caps);
	unsigned int	 bits;

	bits = pversion_client_can(o, v);
	cJSON_Delete(o);
	return (bits);
}

START_TEST(test_pversion_client_can)
{
	const char	*all = "{\"sampling\":{\"tools\":{}},"
	    "\"elicitation\":{\"form\":{},\"url\":{}},\"tasks\":{"
	    "\"requests\":{\"sampling\":{\"createMessage\":{}},"
	    "\"elicitation\":{\"create\":{}}}}}";

	ck_assert_uint_eq(can("{}", PVERSION_NEWEST), 0);
	ck_assert_uint_eq(pversion_client_can(NULL, PVERSION_NEWEST), 0);
	ck_assert_uint_eq(can(all, PVERSION_2025_11_25),
	    PVERSION_CAN_SAMPLING | PVERSION_CAN_SAMPLING_TOOLS |
	    PVERSION_CAN_ELICIT_FORM | PVERSION_CAN_ELICIT_URL |
	    PVERSION_CAN_TASK_SAMPLING | PVERSION_CAN_TASK_ELICIT);
	/* What a revision has not counts for nothing. */
	ck_assert_uint_eq(can(all, PVERSION_2025_06_18),
	    PVERSION_CAN_SAMPLING | PVERSION_CAN_ELICIT_FORM);
	ck_assert_uint_eq(can(all, PVERSION_2025_03_26),
	    PVERSION_CAN_SAMPLING);
	/* {} is form mode; url alone is not form. */
	ck_assert_uint_eq(can("{\"elicitation\":{}}", PVERSION_2025_11_25),
	    PVERSION_CAN_ELICIT_FORM);
	ck_assert_uint_eq(can("{\"elicitation\":{\"url\":{}}}",
	    PVERSION_2025_11_25), PVERSION_CAN_ELICIT_URL);
	ck_assert_uint_eq(can("{\"elicitation\":{\"url\":{}}}",
	    PVERSION_2025_06_18), PVERSION_CAN_ELICIT_FORM);
	ck_assert_uint_eq(can("{\"elicitation\":{\"applyDefaults\":true}}",
	    PVERSION_2025_06_18), PVERSION_CAN_ELICIT_FORM);
	/* Null is not declared. */
	ck_assert_uint_eq(can("{\"sampling\":null,\"elicitation\":null}",
	    PVERSION_NEWEST), 0);
	ck_assert_uint_eq(can("{\"sampling\":{}}", PVERSION_2024_11_05),
	    PVERSION_CAN_SAMPLING);
}
END_TEST

static void
needs(const char *method, const char *params, unsigned int can_bits,
    enum pversion version)
{
	struct pversion_needs	 n;
	cJSON			*o = params != NULL ? parse(params) : NULL;

	pversion_request_needs(method, o, &n);
	cJSON_Delete(o);
	ck_assert_uint_eq(n.can, can_bits);
	ck_assert_int_eq(n.version, version);
}

START_TEST(test_pversion_needs)
{
	struct pversion_needs	 n;

	needs("sampling/createMessage", "{\"messages\":[],\"maxTokens\":9}",
	    PVERSION_CAN_SAMPLING, PVERSION_2024_11_05);
	needs("sampling/createMessage", "{\"messages\":[],\"tools\":[]}",
	    PVERSION_CAN_SAMPLING | PVERSION_CAN_SAMPLING_TOOLS,
	    PVERSION_2024_11_05);
	needs("sampling/createMessage", "{\"messages\":[],\"toolChoice\":"
	    "{\"mode\":\"auto\"}}", PVERSION_CAN_SAMPLING |
	    PVERSION_CAN_SAMPLING_TOOLS, PVERSION_2024_11_05);
	needs("sampling/createMessage", "{\"messages\":[{\"role\":\"user\","
	    "\"content\":[{\"type\":\"tool_result\",\"toolUseId\":\"1\","
	    "\"content\":[]}]}]}", PVERSION_CAN_SAMPLING |
	    PVERSION_CAN_SAMPLING_TOOLS, PVERSION_2024_11_05);
	needs("sampling/createMessage", "{\"messages\":[],\"task\":{}}",
	    PVERSION_CAN_SAMPLING | PVERSION_CAN_TASK_SAMPLING,
	    PVERSION_2024_11_05);
	needs("sampling/createMessage", NULL, PVERSION_CAN_SAMPLING,
	    PVERSION_2024_11_05);
	needs("elicitation/create", "{\"message\":\"m\",\"requestedSchema\":"
	    "{\"type\":\"object\",\"properties\":{}}}",
	    PVERSION_CAN_ELICIT_FORM, PVERSION_2024_11_05);
	needs("elicitation/create", "{\"mode\":\"url\",\"url\":\"https://x\","
	    "\"elicitationId\":\"e\",\"message\":\"m\"}",
	    PVERSION_CAN_ELICIT_URL, PVERSION_2024_11_05);
	needs("elicitation/create", "{\"message\":\"m\",\"task\":{\"ttl\":1},"
	    "\"requestedSchema\":{\"properties\":{}}}",
	    PVERSION_CAN_ELICIT_FORM | PVERSION_CAN_TASK_ELICIT,
	    PVERSION_2024_11_05);
	/* A multi-select it must have: 2025-11-25's alone. */
	needs("elicitation/create", "{\"message\":\"m\",\"requestedSchema\":"
	    "{\"properties\":{\"a\":{\"type\":\"array\",\"items\":{}}},"
	    "\"required\":[\"a\"]}}", PVERSION_CAN_ELICIT_FORM,
	    PVERSION_2025_11_25);
	needs("elicitation/create", "{\"message\":\"m\",\"requestedSchema\":"
	    "{\"properties\":{\"a\":{\"type\":\"array\",\"items\":{}}}}}",
	    PVERSION_CAN_ELICIT_FORM, PVERSION_2024_11_05);
	needs("roots/list", NULL, 0, PVERSION_2024_11_05);

	n.can = PVERSION_CAN_SAMPLING | PVERSION_CAN_SAMPLING_TOOLS;
	n.version = PVERSION_2024_11_05;
	ck_assert(pversion_satisfies(PVERSION_NEWEST, 0x3f, &n));
	ck_assert(!pversion_satisfies(PVERSION_NEWEST,
	    PVERSION_CAN_SAMPLING, &n));
	n.can = PVERSION_CAN_ELICIT_FORM;
	n.version = PVERSION_2025_11_25;
	ck_assert(!pversion_satisfies(PVERSION_2025_06_18,
	    PVERSION_CAN_ELICIT_FORM, &n));
	ck_assert(pversion_satisfies(PVERSION_2025_11_25,
	    PVERSION_CAN_ELICIT_FORM, &n));
}
END_TEST

START_TEST(test_pversion_notifications)
{
	ck_assert(!pversion_notification(PVERSION_2025_06_18,
	    "notifications/tasks/status"));
	ck_assert(pversion_notification(PVERSION_2025_11_25,
	    "notifications/tasks/status"));
	ck_assert(!pversion_notification(PVERSION_2025_06_18,
	    "notifications/elicitation/complete"));
	ck_assert(pversion_notification(PVERSION_2025_11_25,
	    "notifications/elicitation/complete"));
	ck_assert(pversion_notification(PVERSION_2024_11_05,
	    "notifications/tools/list_changed"));
	ck_assert(pversion_notification(PVERSION_2024_11_05,
	    "notifications/resources/updated"));
	ck_assert(pversion_notification(PVERSION_2024_11_05, ""));
}
END_TEST

static char *
init_for(const char *text, enum pversion v)
{
	cJSON	*o = parse(text);
	char	*out;

	pversion_init_result(o, v);
	out = rpc_print(o);
	cJSON_Delete(o);
	return (out);
}

START_TEST(test_pversion_init_result)
{
	const char	*up = "{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":{\"tools\":{\"listChanged\":true},"
	    "\"completions\":{},\"tasks\":{\"list\":{}},\"logging\":{}},"
	    "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\",\"title\":\"S\","
	    "\"icons\":[],\"websiteUrl\":\"https://s\","
	    "\"description\":\"d\"},\"instructions\":\"i\"}";
	char		*out;

	out = init_for(up, PVERSION_2025_11_25);
	ck_assert_str_eq(out, up);
	free(out);
	out = init_for(up, PVERSION_2025_06_18);
	ck_assert_str_eq(out, "{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{\"tools\":{\"listChanged\":true},"
	    "\"completions\":{},\"logging\":{}},\"serverInfo\":{\"name\":\"s\","
	    "\"version\":\"1\",\"title\":\"S\"},\"instructions\":\"i\"}");
	free(out);
	out = init_for(up, PVERSION_2025_03_26);
	ck_assert_str_eq(out, "{\"protocolVersion\":\"2025-03-26\","
	    "\"capabilities\":{\"tools\":{\"listChanged\":true},"
	    "\"completions\":{},\"logging\":{}},\"serverInfo\":{\"name\":\"s\","
	    "\"version\":\"1\"},\"instructions\":\"i\"}");
	free(out);
	out = init_for(up, PVERSION_2024_11_05);
	ck_assert_str_eq(out, "{\"protocolVersion\":\"2024-11-05\","
	    "\"capabilities\":{\"tools\":{\"listChanged\":true},"
	    "\"logging\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"},"
	    "\"instructions\":\"i\"}");
	free(out);
	/* An older server's result, a newer client: its version is said. */
	out = init_for("{\"protocolVersion\":\"2024-11-05\",\"capabilities\":"
	    "{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}",
	    PVERSION_2025_11_25);
	ck_assert_str_eq(out, "{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":{},\"serverInfo\":{\"name\":\"s\","
	    "\"version\":\"1\"}}");
	free(out);
	/* A member repeated goes whole: a reader may take either. */
	out = init_for("{\"capabilities\":{\"tasks\":{},\"tools\":{},"
	    "\"tasks\":{\"list\":{}}}}", PVERSION_2025_06_18);
	ck_assert_str_eq(out, "{\"capabilities\":{\"tools\":{}},"
	    "\"protocolVersion\":\"2025-06-18\"}");
	free(out);
	/* Without one, or without capabilities: added, nothing broken. */
	out = init_for("{}", PVERSION_2024_11_05);
	ck_assert_str_eq(out, "{\"protocolVersion\":\"2024-11-05\"}");
	free(out);
}
END_TEST

START_TEST(test_pversion_call_links)
{
	const char	*result = "{\"content\":[{\"type\":\"text\","
	    "\"text\":\"hi\"},{\"type\":\"resource_link\",\"uri\":\"test://a\","
	    "\"name\":\"A\",\"description\":\"the a\",\"mimeType\":"
	    "\"text/plain\",\"annotations\":{\"priority\":1}},{\"type\":"
	    "\"resource_link\",\"uri\":\"test://b\",\"name\":\"b\",\"title\":"
	    "\"Bee\"}],\"structuredContent\":{\"x\":1}}";
	char		*out;

	out = converted("tools/call", result, PVERSION_2025_06_18);
	ck_assert_str_eq(out, "unchanged");
	free(out);
	out = converted("tools/call", result, PVERSION_2025_03_26);
	ck_assert_str_eq(out, "{\"content\":[{\"type\":\"text\","
	    "\"text\":\"hi\"},{\"type\":\"text\",\"text\":\"Resource link "
	    "\\\"A\\\": test://a (text/plain): the a\",\"annotations\":"
	    "{\"priority\":1}},{\"type\":\"text\",\"text\":\"Resource link "
	    "\\\"Bee\\\": test://b\"}],\"structuredContent\":{\"x\":1}}");
	free(out);
	/* Not a call: nothing to do. */
	out = converted("resources/read", result, PVERSION_2024_11_05);
	ck_assert_str_eq(out, "unchanged");
	free(out);
	/* Nothing it lacks, whatever the revision. */
	out = converted("tools/call", "{\"content\":[{\"type\":\"text\","
	    "\"text\":\"a resource_link\"}]}", PVERSION_2024_11_05);
	ck_assert_str_eq(out, "unchanged");
	free(out);
	/* A type spelled with an escape is read as it is. */
	out = converted("tools/call", "{\"content\":[{\"type\":"
	    "\"resource\\u005flink\",\"uri\":\"u\"}]}", PVERSION_2025_03_26);
	ck_assert_str_eq(out, "{\"content\":[{\"type\":\"text\",\"text\":"
	    "\"Resource link: u\"}]}");
	free(out);
}
END_TEST

START_TEST(test_pversion_audio)
{
	const char	*result = "{\"content\":[{\"type\":\"audio\",\"data\":"
	    "\"AAAAAAAA\",\"mimeType\":\"audio/wav\"}]}";
	const char	*prompt = "{\"messages\":[{\"role\":\"user\","
	    "\"content\":{\"type\":\"audio\",\"data\":\"AAAA\","
	    "\"mimeType\":\"audio/mp3\"}},"
	    "{\"role\":\"assistant\",\"content\":{\"type\":\"resource_link\","
	    "\"uri\":\"x://y\",\"name\":\"n\"}}]}";
	char		*out;

	out = converted("tools/call", result, PVERSION_2025_03_26);
	ck_assert_str_eq(out, "unchanged");
	free(out);
	out = converted("tools/call", result, PVERSION_2024_11_05);
	ck_assert_str_eq(out, "{\"content\":[{\"type\":\"text\",\"text\":"
	    "\"Audio (audio/wav, 6 bytes) not shown: MCP 2024-11-05 has no "
	    "audio content\"}]}");
	free(out);
	out = converted("prompts/get", prompt, PVERSION_2024_11_05);
	ck_assert_str_eq(out, "{\"messages\":[{\"role\":\"user\",\"content\":"
	    "{\"type\":\"text\",\"text\":\"Audio (audio/mp3, 3 bytes) not "
	    "shown: MCP 2024-11-05 has no audio content\"}},{\"role\":"
	    "\"assistant\",\"content\":{\"type\":\"text\",\"text\":"
	    "\"Resource link \\\"n\\\": x://y\"}}]}");
	free(out);
	out = converted("prompts/get", prompt, PVERSION_2025_03_26);
	ck_assert_str_eq(out, "{\"messages\":[{\"role\":\"user\","
	    "\"content\":{\"type\":\"audio\",\"data\":\"AAAA\","
	    "\"mimeType\":\"audio/mp3\"}},"
	    "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":"
	    "\"Resource link \\\"n\\\": x://y\"}}]}");
	free(out);
}
END_TEST

START_TEST(test_pversion_sampling)
{
	const char	*params = "{\"messages\":[{\"role\":\"user\","
	    "\"content\":[{\"type\":\"audio\",\"data\":\"\",\"mimeType\":"
	    "\"audio/wav\"}]}],\"maxTokens\":5}";
	char		*out;

	out = converted("sampling/createMessage", params, PVERSION_NEWEST);
	ck_assert_str_eq(out, "unchanged");
	free(out);
	/* An array of one is that block; audio is text before 2025-03-26. */
	out = converted("sampling/createMessage", params, PVERSION_2025_06_18);
	ck_assert_str_eq(out, "{\"messages\":[{\"role\":\"user\",\"content\":"
	    "{\"type\":\"audio\",\"data\":\"\",\"mimeType\":\"audio/wav\"}}],"
	    "\"maxTokens\":5}");
	free(out);
	out = converted("sampling/createMessage", params, PVERSION_2024_11_05);
	ck_assert_str_eq(out, "{\"messages\":[{\"role\":\"user\",\"content\":"
	    "{\"type\":\"text\",\"text\":\"Audio (audio/wav, 0 bytes) not "
	    "shown: MCP 2024-11-05 has no audio content\"}}],"
	    "\"maxTokens\":5}");
	free(out);
}
END_TEST

START_TEST(test_pversion_form)
{
	const char	*params = "{\"mode\":\"form\",\"message\":\"m\","
	    "\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
	    "\"name\":{\"type\":\"string\",\"default\":\"x\"},"
	    "\"ok\":{\"type\":\"boolean\",\"default\":true},"
	    "\"n\":{\"type\":\"integer\",\"default\":4},"
	    "\"many\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
	    "\"enum\":[\"a\",\"b\"]}},"
	    "\"hero\":{\"type\":\"string\",\"oneOf\":[{\"const\":\"h1\","
	    "\"title\":\"Superman\"},{\"const\":\"h2\"}]},"
	    "\"pet\":{\"type\":\"string\",\"enum\":[\"p1\"],"
	    "\"enumNames\":[\"Cat\"]}},\"required\":[\"name\",\"many\"]}}";
	char		*out;

	out = converted("elicitation/create", params, PVERSION_2025_11_25);
	ck_assert_str_eq(out, "unchanged");
	free(out);
	out = converted("elicitation/create", params, PVERSION_2025_06_18);
	ck_assert_str_eq(out, "{\"message\":\"m\",\"requestedSchema\":{"
	    "\"type\":\"object\",\"properties\":{"
	    "\"name\":{\"type\":\"string\"},"
	    "\"ok\":{\"type\":\"boolean\",\"default\":true},"
	    "\"n\":{\"type\":\"integer\"},"
	    "\"hero\":{\"type\":\"string\",\"enum\":[\"h1\",\"h2\"],"
	    "\"enumNames\":[\"Superman\",\"h2\"]},"
	    "\"pet\":{\"type\":\"string\",\"enum\":[\"p1\"],"
	    "\"enumNames\":[\"Cat\"]}},\"required\":[\"name\"]}}");
	free(out);
	/* A form in 2025-06-18's terms already: nothing changes. */
	out = converted("elicitation/create", "{\"message\":\"m\","
	    "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"a\":"
	    "{\"type\":\"string\"}}}}", PVERSION_2025_06_18);
	ck_assert_str_eq(out, "unchanged");
	free(out);
}
END_TEST

START_TEST(test_pversion_text_bounds)
{
	const char	*result = "{\"content\":[{\"type\":\"resource_link\","
	    "\"uri\":\"u\"}]}";
	char		*out;
	size_t		 len;

	/* Over the bound, not an object, not JSON: left as it is. */
	ck_assert_ptr_null(pversion_convert_text(result, strlen(result),
	    "tools/call", PVERSION_2025_03_26, 10, &len));
	ck_assert_ptr_null(pversion_convert_text("[\"resource_link\"]", 17,
	    "tools/call", PVERSION_2025_03_26, 100, &len));
	ck_assert_ptr_null(pversion_convert_text("{\"resource_link\"", 16,
	    "tools/call", PVERSION_2025_03_26, 100, &len));
	/* Content that is not an array, blocks that are not objects. */
	out = converted("tools/call", "{\"content\":{\"type\":"
	    "\"resource_link\"}}", PVERSION_2025_03_26);
	ck_assert_str_eq(out, "unchanged");
	free(out);
	out = converted("tools/call", "{\"content\":[\"resource_link\",1,null,"
	    "{\"type\":\"resource_link\"}]}", PVERSION_2025_03_26);
	ck_assert_str_eq(out, "{\"content\":[\"resource_link\",1,null,"
	    "{\"type\":\"text\",\"text\":\"Resource link: (no uri)\"}]}");
	free(out);
	ck_assert(!pversion_converts("tools/call", PVERSION_2025_06_18));
	ck_assert(pversion_converts("tools/call", PVERSION_2025_03_26));
	ck_assert(pversion_converts("elicitation/create",
	    PVERSION_2025_06_18));
	ck_assert(!pversion_converts("tools/list", PVERSION_2024_11_05));
	ck_assert(!pversion_converts(NULL, PVERSION_2024_11_05));
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("pversion");
	tc = tcase_create("pversion");
	tcase_add_test(tc, test_pversion_names);
	tcase_add_test(tc, test_pversion_has);
	tcase_add_test(tc, test_pversion_client_can);
	tcase_add_test(tc, test_pversion_needs);
	tcase_add_test(tc, test_pversion_notifications);
	tcase_add_test(tc, test_pversion_init_result);
	tcase_add_test(tc, test_pversion_call_links);
	tcase_add_test(tc, test_pversion_audio);
	tcase_add_test(tc, test_pversion_sampling);
	tcase_add_test(tc, test_pversion_form);
	tcase_add_test(tc, test_pversion_text_bounds);
	suite_add_tcase(s, tc);
	return (s);
}
