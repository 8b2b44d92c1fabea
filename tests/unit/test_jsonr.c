/* test_jsonr.c: the strict JSON reader: the JSONTestSuite cases it must
 * accept (y_) and refuse (n_), our choice on the implementation-defined
 * ones (i_), the tree it builds, numbers and strings in detail, the
 * limits, duplicate keys, round trips through the writer, and random
 * mutations of valid documents, which must never crash. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jsonr.h"
#include "jv_equal.h"
#include "tap.h"
#include "util.h"

static char err[256];

/* --- helpers --- */

static bool accept(const char *doc, size_t n, const char *title)
{
	struct jv *v = jv_parse(doc, n, NULL, err, sizeof(err));
	ok(v != NULL, "accepts %s", title);
	if (!v)
		diag("error: %s", err);
	jv_free(v);
	return v != NULL;
}

static bool reject_lim(const char *doc, size_t n, const struct jv_limits *lim,
		       const char *want, const char *title)
{
	strcpy(err, "(untouched)");
	struct jv *v = jv_parse(doc, n, lim, err, sizeof(err));
	bool good = v == NULL && strstr(err, want) != NULL;
	ok(good, "refuses %s", title);
	if (!good) {
		diag("parsed: %s", v ? "yes" : "no");
		diag("error: %s", err);
		diag("wanted in it: %s", want);
	}
	jv_free(v);
	return good;
}

static bool reject(const char *doc, size_t n, const char *want, const char *title)
{
	return reject_lim(doc, n, NULL, want, title);
}

#define Y(lit, title) accept(lit, sizeof(lit) - 1, title)
#define N(lit, want, title) reject(lit, sizeof(lit) - 1, want, title)

/* Parses a literal that must be valid; the test fails (and the caller
 * gets NULL) otherwise. */
static struct jv *parse_ok(const char *doc, size_t n)
{
	struct jv *v = jv_parse(doc, n, NULL, err, sizeof(err));
	if (!v)
		diag("unexpected error on %.60s: %s", doc, err);
	return v;
}

#define P(lit) parse_ok(lit, sizeof(lit) - 1)

/* Writes a tree back with the writer. The writer has no call for a raw
 * number or a key of known length, so those two are done here the way
 * json.c does its own: a comma when due, then the text. */
static void emit_raw(struct json *j, const char *s, size_t n)
{
	if (j->need_comma)
		sbuf_addc(&j->out, ',');
	j->need_comma = true;
	sbuf_add(&j->out, s, n);
}

static void emit(struct json *j, const struct jv *v)
{
	switch (v->type) {
	case JV_NULL:
		json_null(j);
		break;
	case JV_BOOL:
		json_bool(j, v->b);
		break;
	case JV_NUMBER:
		emit_raw(j, v->num.text, v->num.text_len);
		break;
	case JV_STRING:
		json_strn(j, v->str.s, v->str.len);
		break;
	case JV_ARRAY:
		json_arr_open(j);
		for (size_t i = 0; i < v->arr.count; i++)
			emit(j, &v->arr.items[i]);
		json_arr_close(j);
		break;
	case JV_OBJECT:
		json_obj_open(j);
		for (size_t i = 0; i < v->obj.count; i++) {
			const struct jv_member *m = &v->obj.members[i];
			json_keyn(j, m->key, m->key_len);
			emit(j, &m->value);
		}
		json_obj_close(j);
		break;
	}
}

static unsigned long rng = 88172645463325252UL;

static unsigned rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

/* --- JSONTestSuite: y_ must be accepted --- */

static void test_suite_y(void)
{
	Y("[[]   ]", "y_array_arraysWithSpaces");
	Y("[\"\"]", "y_array_empty-string");
	Y("[]", "y_array_empty");
	Y("[\"a\"]", "y_array_ending_with_newline");
	Y("[false]", "y_array_false");
	Y("[null, 1, \"1\", {}]", "y_array_heterogeneous");
	Y("[null]", "y_array_null");
	Y("[1\n]", "y_array_with_1_and_newline");
	Y(" [1]", "y_array_with_leading_space");
	Y("[1,null,null,null,2]", "y_array_with_several_null");
	Y("[2] ", "y_array_with_trailing_space");
	Y("[123e65]", "y_number");
	Y("[0e+1]", "y_number_0e+1");
	Y("[0e1]", "y_number_0e1");
	Y("[ 4]", "y_number_after_space");
	Y("[-0.000000000000000000000000000000000000000000000000000000000000000000000000000001]\n",
	  "y_number_double_close_to_zero");
	Y("[20e1]", "y_number_int_with_exp");
	Y("[-0]", "y_number_minus_zero");
	Y("[-123]", "y_number_negative_int");
	Y("[-1]", "y_number_negative_one");
	Y("[-0]", "y_number_negative_zero");
	Y("[1E22]", "y_number_real_capital_e");
	Y("[1E-2]", "y_number_real_capital_e_neg_exp");
	Y("[1E+2]", "y_number_real_capital_e_pos_exp");
	Y("[123e45]", "y_number_real_exponent");
	Y("[123.456e78]", "y_number_real_fraction_exponent");
	Y("[1e-2]", "y_number_real_neg_exp");
	Y("[1e+2]", "y_number_real_pos_exponent");
	Y("[123]", "y_number_simple_int");
	Y("[123.456789]", "y_number_simple_real");
	Y("{\"asd\":\"sdf\", \"dfg\":\"fgh\"}", "y_object");
	Y("{\"asd\":\"sdf\"}", "y_object_basic");
	Y("{}", "y_object_empty");
	Y("{\"\":0}", "y_object_empty_key");
	Y("{\"foo\\u0000bar\": 42}", "y_object_escaped_null_in_key");
	Y("{ \"min\": -1.0e+28, \"max\": 1.0e+28 }", "y_object_extreme_numbers");
	Y("{\"x\":[{\"id\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}], "
	  "\"id\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}", "y_object_long_strings");
	Y("{\"a\":[]}", "y_object_simple");
	Y("{\"title\":\"\\u041f\\u043e\\u043b\\u0442\\u043e\\u0440\\u0430 \\u0417\\u0435\\u043c"
	  "\\u043b\\u0435\\u043a\\u043e\\u043f\\u0430\" }", "y_object_string_unicode");
	Y("{\n\"a\": \"b\"\n}", "y_object_with_newlines");
	Y("[\"\\u0060\\u012a\\u12AB\"]", "y_string_1_2_3_bytes_UTF-8_sequences");
	Y("[\"\\uD801\\udc37\"]", "y_string_accepted_surrogate_pair");
	Y("[\"\\ud83d\\ude39\\ud83d\\udc8d\"]", "y_string_accepted_surrogate_pairs");
	Y("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", "y_string_allowed_escapes");
	Y("[\"\\\\u0000\"]", "y_string_backslash_and_u_escaped_zero");
	Y("[\"\\\"\"]", "y_string_backslash_doublequotes");
	Y("[\"a/*b*/c/*d//e\"]", "y_string_comments");
	Y("[\"\\\\a\"]", "y_string_double_escape_a");
	Y("[\"\\\\n\"]", "y_string_double_escape_n");
	Y("[\"\\u0012\"]", "y_string_escaped_control_character");
	Y("[\"\\uFFFF\"]", "y_string_escaped_noncharacter");
	Y("[\"asd\"]", "y_string_in_array");
	Y("[ \"asd\"]", "y_string_in_array_with_leading_space");
	Y("[\"\\uDBFF\\uDFFF\"]", "y_string_last_surrogates_1_and_2");
	Y("[\"new\\u00A0line\"]", "y_string_nbsp_uescaped");
	Y("[\"\xf4\x8f\xbf\xbf\"]", "y_string_nonCharacterInUTF-8_U+10FFFF");
	Y("[\"\xef\xbf\xbf\"]", "y_string_nonCharacterInUTF-8_U+FFFF");
	Y("[\"\\u0000\"]", "y_string_null_escape");
	Y("[\"\\u002c\"]", "y_string_one-byte-utf-8");
	Y("[\"\xcf\x80\"]", "y_string_pi");
	Y("[\"\xf0\x9b\xbf\xbf\"]", "y_string_reservedCharacterInUTF-8_U+1BFFF");
	Y("[\"asd \"]", "y_string_simple_ascii");
	Y("\" \"", "y_string_space");
	Y("[\"\\uD834\\uDd1e\"]", "y_string_surrogates_U+1D11E_MUSICAL_SYMBOL_G_CLEF");
	Y("[\"\\u0821\"]", "y_string_three-byte-utf-8");
	Y("[\"\\u0123\"]", "y_string_two-byte-utf-8");
	Y("[\"\xe2\x80\xa8\"]", "y_string_u+2028_line_sep");
	Y("[\"\xe2\x80\xa9\"]", "y_string_u+2029_par_sep");
	Y("[\"\\u0061\\u30af\\u30EA\\u30b9\"]", "y_string_uEscape");
	Y("[\"new\\u000Aline\"]", "y_string_uescaped_newline");
	Y("[\"\x7f\"]", "y_string_unescaped_char_delete");
	Y("[\"\\uA66D\"]", "y_string_unicode");
	Y("[\"\\u005C\"]", "y_string_unicodeEscapedBackslash");
	Y("[\"\xe2\x8d\x82\xe3\x88\xb4\xe2\x8d\x82\"]", "y_string_unicode_2");
	Y("[\"\\uDBFF\\uDFFE\"]", "y_string_unicode_U+10FFFE_nonchar");
	Y("[\"\\uD83F\\uDFFE\"]", "y_string_unicode_U+1FFFE_nonchar");
	Y("[\"\\u200B\"]", "y_string_unicode_U+200B_ZERO_WIDTH_SPACE");
	Y("[\"\\u2064\"]", "y_string_unicode_U+2064_invisible_plus");
	Y("[\"\\uFDD0\"]", "y_string_unicode_U+FDD0_nonchar");
	Y("[\"\\uFFFE\"]", "y_string_unicode_U+FFFE_nonchar");
	Y("[\"\\u0022\"]", "y_string_unicode_escaped_double_quote");
	Y("[\"\xe2\x82\xac\xf0\x9d\x84\x9e\"]", "y_string_utf8");
	Y("[\"a\x7f" "a\"]", "y_string_with_del_character");
	Y("false", "y_structure_lonely_false");
	Y("42", "y_structure_lonely_int");
	Y("-0.1", "y_structure_lonely_negative_real");
	Y("null", "y_structure_lonely_null");
	Y("\"asd\"", "y_structure_lonely_string");
	Y("true", "y_structure_lonely_true");
	Y("\"\"", "y_structure_string_empty");
	Y("[\"a\"]\n", "y_structure_trailing_newline");
	Y("[true]", "y_structure_true_in_array");
	Y(" [] ", "y_structure_whitespace_array");
	Y(" \t\r\n[ \t\r\n1 \t\r\n, \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\nnull \t\r\n} \t\r\n] \t\r\n",
	  "the four whitespace bytes everywhere whitespace may go");
}

/* --- JSONTestSuite: n_ must be refused --- */

static void test_suite_n_arrays_literals(void)
{
	N("[1 true]", "at byte 3: expected ',' or ']' after an array element, found 't'",
	  "n_array_1_true_without_comma");
	N("[a\xe5]", "at byte 1: expected a value, found 'a'", "n_array_a_invalid_utf8");
	N("[\"\": 1]", "at byte 3: expected ',' or ']'", "n_array_colon_instead_of_comma");
	N("[\"\"],", "at byte 4: expected the end of the input after the value, found ','",
	  "n_array_comma_after_close");
	N("[,1]", "at byte 1: expected a value, found ','", "n_array_comma_and_number");
	N("[1,,2]", "at byte 3: expected a value, found ','", "n_array_double_comma");
	N("[\"x\",,]", "at byte 5: expected a value", "n_array_double_extra_comma");
	N("[\"x\"]]", "at byte 5: expected the end of the input", "n_array_extra_close");
	N("[\"\",]", "at byte 4: expected a value, found ']'", "n_array_extra_comma");
	N("[\"x\"", "at byte 4: expected ',' or ']' after an array element, found the end of the input",
	  "n_array_incomplete");
	N("[x", "at byte 1: expected a value, found 'x'", "n_array_incomplete_invalid_value");
	N("[3[4]]", "at byte 2: expected ',' or ']'", "n_array_inner_array_no_comma");
	N("[\xff]", "at byte 1: expected a value, found byte 0xff", "n_array_invalid_utf8");
	N("[1:2]", "at byte 2: expected ',' or ']'", "n_array_items_separated_by_semicolon");
	N("[,]", "at byte 1: expected a value", "n_array_just_comma");
	N("[-]", "at byte 2: expected a digit after '-', found ']'", "n_array_just_minus");
	N("[   , \"\"]", "at byte 4: expected a value", "n_array_missing_value");
	N("[\"a\",\n4\n,1,", "at byte 11: expected a value, found the end of the input",
	  "n_array_newlines_unclosed");
	N("[1,]", "at byte 3: expected a value, found ']'", "n_array_number_and_comma");
	N("[1,,]", "at byte 3: expected a value", "n_array_number_and_several_commas");
	N("[\"\va\"\\f]", "at byte 2: raw control character 0x0b in a string",
	  "n_array_spaces_vertical_tab_formfeed");
	N("[*]", "at byte 1: expected a value, found '*'", "n_array_star_inside");
	N("[\"\"", "found the end of the input", "n_array_unclosed");
	N("[1,", "at byte 3: expected a value, found the end of the input",
	  "n_array_unclosed_trailing_comma");
	N("[1,\n1\n,1", "found the end of the input", "n_array_unclosed_with_new_lines");
	N("[{}", "at byte 3: expected ',' or ']'", "n_array_unclosed_with_object_inside");
	N("[fals]", "at byte 5: expected 'false', found ']'", "n_incomplete_false");
	N("[nul]", "at byte 4: expected 'null', found ']'", "n_incomplete_null");
	N("[tru]", "at byte 4: expected 'true', found ']'", "n_incomplete_true");
	N("123\0", "at byte 3: expected the end of the input after the value, found byte 0x00",
	  "n_multidigit_number_then_00");
}

static void test_suite_n_numbers(void)
{
	N("[++1234]", "at byte 1: expected a value, found '+'", "n_number_++");
	N("[+1]", "at byte 1: expected a value, found '+'", "n_number_+1");
	N("[+Inf]", "at byte 1: expected a value", "n_number_+Inf");
	N("[-01]", "at byte 1: a number cannot start with a 0 followed by a digit", "n_number_-01");
	N("[-1.0.]", "at byte 5: expected ',' or ']'", "n_number_-1.0.");
	N("[-2.]", "at byte 4: expected a digit after the decimal point, found ']'", "n_number_-2.");
	N("[-NaN]", "at byte 2: expected a digit after '-', found 'N'", "n_number_-NaN");
	N("[.-1]", "at byte 1: expected a value, found '.'", "n_number_.-1");
	N("[.2e-3]", "at byte 1: expected a value, found '.'", "n_number_.2e-3");
	N("[0.1.2]", "at byte 4: expected ',' or ']'", "n_number_0.1.2");
	N("[0.3e+]", "at byte 6: expected a digit in the exponent, found ']'", "n_number_0.3e+");
	N("[0.3e]", "at byte 5: expected a digit in the exponent", "n_number_0.3e");
	N("[0.e1]", "at byte 3: expected a digit after the decimal point, found 'e'", "n_number_0.e1");
	N("[0E+]", "at byte 4: expected a digit in the exponent", "n_number_0_capital_E+");
	N("[0E]", "at byte 3: expected a digit in the exponent", "n_number_0_capital_E");
	N("[0e+]", "at byte 4: expected a digit in the exponent", "n_number_0e+");
	N("[0e]", "at byte 3: expected a digit in the exponent", "n_number_0e");
	N("[1.0e+]", "at byte 6: expected a digit in the exponent", "n_number_1.0e+");
	N("[1.0e-]", "at byte 6: expected a digit in the exponent", "n_number_1.0e-");
	N("[1.0e]", "at byte 5: expected a digit in the exponent", "n_number_1.0e");
	N("[1 000.0]", "at byte 3: expected ',' or ']'", "n_number_1_000");
	N("[1eE2]", "at byte 3: expected a digit in the exponent, found 'E'", "n_number_1eE2");
	N("[2.e+3]", "at byte 3: expected a digit after the decimal point", "n_number_2.e+3");
	N("[2.e-3]", "at byte 3: expected a digit after the decimal point", "n_number_2.e-3");
	N("[2.e3]", "at byte 3: expected a digit after the decimal point", "n_number_2.e3");
	N("[9.e+]", "at byte 3: expected a digit after the decimal point", "n_number_9.e+");
	N("[Inf]", "at byte 1: expected a value, found 'I'", "n_number_Inf");
	N("[NaN]", "at byte 1: expected a value, found 'N'", "n_number_NaN");
	N("[\xef\xbc\x91]", "at byte 1: expected a value, found byte 0xef",
	  "n_number_U+FF11_fullwidth_digit_one");
	N("[1+2]", "at byte 2: expected ',' or ']'", "n_number_expression");
	N("[0x1]", "at byte 2: expected ',' or ']'", "n_number_hex_1_digit");
	N("[0x42]", "at byte 2: expected ',' or ']'", "n_number_hex_2_digits");
	N("[Infinity]", "at byte 1: expected a value, found 'I'", "n_number_infinity");
	N("[0e+-1]", "at byte 4: expected a digit in the exponent, found '-'", "n_number_invalid+-");
	N("[-123.123foo]", "at byte 9: expected ',' or ']'", "n_number_invalid-negative-real");
	N("[123\xe5]", "at byte 4: expected ',' or ']' after an array element, found byte 0xe5",
	  "n_number_invalid-utf-8-in-bigger-int");
	N("[1e1\xe5]", "at byte 4: expected ',' or ']'", "n_number_invalid-utf-8-in-exponent");
	N("[0\xe5]", "at byte 2: expected ',' or ']'", "n_number_invalid-utf-8-in-int");
	N("[-Infinity]", "at byte 2: expected a digit after '-', found 'I'", "n_number_minus_infinity");
	N("[-foo]", "at byte 2: expected a digit after '-', found 'f'",
	  "n_number_minus_sign_with_trailing_garbage");
	N("[- 1]", "at byte 2: expected a digit after '-', found a space", "n_number_minus_space_1");
	N("[-012]", "at byte 1: a number cannot start with a 0", "n_number_neg_int_starting_with_zero");
	N("[-.123]", "at byte 2: expected a digit after '-', found '.'",
	  "n_number_neg_real_without_int_part");
	N("[-1x]", "at byte 3: expected ',' or ']'", "n_number_neg_with_garbage_at_end");
	N("[1ea]", "at byte 3: expected a digit in the exponent, found 'a'",
	  "n_number_real_garbage_after_e");
	N("[1e\xe5]", "at byte 3: expected a digit in the exponent, found byte 0xe5",
	  "n_number_real_with_invalid_utf8_after_e");
	N("[1.]", "at byte 3: expected a digit after the decimal point, found ']'",
	  "n_number_real_without_fractional_part");
	N("[.123]", "at byte 1: expected a value, found '.'", "n_number_starting_with_dot");
	N("[1.2a-3]", "at byte 4: expected ',' or ']'", "n_number_with_alpha");
	N("[1.8011670033376514H-308]", "at byte 19: expected ',' or ']'", "n_number_with_alpha_char");
	N("[012]", "at byte 1: a number cannot start with a 0 followed by a digit",
	  "n_number_with_leading_zero");
	N("00", "at byte 0: a number cannot start with a 0", "00 at the top");
	N("-", "at byte 1: expected a digit after '-', found the end of the input", "a lone minus");
}

static void test_suite_n_objects(void)
{
	N("[\"x\", truth]", "at byte 9: expected 'true', found 't'", "n_object_bad_value");
	N("{[: \"x\"}", "at byte 1: expected a string to start an object key, found '['",
	  "n_object_bracket_key");
	N("{\"x\", null}", "at byte 4: expected ':' after an object key, found ','",
	  "n_object_comma_instead_of_colon");
	N("{\"x\"::\"b\"}", "at byte 5: expected a value, found ':'", "n_object_double_colon");
	N("{\xf0\x9f\x87\xa8\xf0\x9f\x87\xad}", "at byte 1: expected a string to start an object key, "
	  "found byte 0xf0", "n_object_emoji");
	N("{\"a\":\"a\" 123}", "at byte 9: expected ',' or '}' after an object member, found '1'",
	  "n_object_garbage_at_end");
	N("{key: 'value'}", "at byte 1: expected a string to start an object key, found 'k'",
	  "n_object_key_with_single_quotes");
	N("{\"\xb9\":\"0\",}", "at byte 2: invalid UTF-8 in a string (byte 0xb9)",
	  "n_object_lone_continuation_byte_in_key_and_trailing_comma");
	N("{\"a\" b}", "at byte 5: expected ':' after an object key, found 'b'",
	  "n_object_missing_colon");
	N("{:\"b\"}", "at byte 1: expected a string to start an object key, found ':'",
	  "n_object_missing_key");
	N("{\"a\" \"b\"}", "at byte 5: expected ':' after an object key, found '\"'",
	  "n_object_missing_semicolon");
	N("{\"a\":", "at byte 5: expected a value, found the end of the input", "n_object_missing_value");
	N("{\"a\"", "at byte 4: expected ':' after an object key, found the end of the input",
	  "n_object_no-colon");
	N("{1:1}", "at byte 1: expected a string to start an object key, found '1'",
	  "n_object_non_string_key");
	N("{9999E9999:1}", "at byte 1: expected a string to start an object key",
	  "n_object_non_string_key_but_huge_number_instead");
	N("{null:null,null:null}", "at byte 1: expected a string to start an object key",
	  "n_object_repeated_null_null");
	N("{\"id\":0,,,,,}", "at byte 8: expected a string to start an object key, found ','",
	  "n_object_several_trailing_commas");
	N("{'a':0}", "at byte 1: expected a string to start an object key, found a single quote",
	  "n_object_single_quote");
	N("{\"id\":0,}", "at byte 8: expected a string to start an object key, found '}'",
	  "n_object_trailing_comma");
	N("{\"a\":\"b\"}/**/", "at byte 9: expected the end of the input after the value, found '/'",
	  "n_object_trailing_comment");
	N("{\"a\":\"b\"}/**//", "at byte 9: expected the end of the input",
	  "n_object_trailing_comment_open");
	N("{\"a\":\"b\"}//", "at byte 9: expected the end of the input",
	  "n_object_trailing_comment_slash_open");
	N("{\"a\":\"b\"}/", "at byte 9: expected the end of the input",
	  "n_object_trailing_comment_slash_open_incomplete");
	N("{\"a\":\"b\",,\"c\":\"d\"}", "at byte 9: expected a string to start an object key",
	  "n_object_two_commas_in_a_row");
	N("{a: \"b\"}", "at byte 1: expected a string to start an object key, found 'a'",
	  "n_object_unquoted_key");
	N("{\"a\":\"a", "at byte 7: unterminated string: the input ends before the quote that "
	  "closes the string at byte 5", "n_object_unterminated-value");
	N("{ \"foo\" : \"bar\", \"a\" }", "at byte 21: expected ':' after an object key, found '}'",
	  "n_object_with_single_string");
	N("{\"a\":\"b\"}#", "at byte 9: expected the end of the input after the value, found '#'",
	  "n_object_with_trailing_garbage");
	N("{\"a\":/*comment*/\"b\"}", "at byte 5: expected a value, found '/'",
	  "n_structure_object_with_comment");
}

static void test_suite_n_strings(void)
{
	N("[\"\\uD800\\\"]", "at byte 2: lone high surrogate \\uD800", "n_string_1_surrogate_then_escape");
	N("[\"\\uD800\\u\"]", "at byte 2: lone high surrogate \\uD800",
	  "n_string_1_surrogate_then_escape_u");
	N("[\"\\uD800\\u1\"]", "at byte 2: lone high surrogate",
	  "n_string_1_surrogate_then_escape_u1");
	N("[\"\\uD800\\u1x\"]", "at byte 2: lone high surrogate",
	  "n_string_1_surrogate_then_escape_u1x");
	N("[\xc3\xa9]", "at byte 1: expected a value, found byte 0xc3",
	  "n_string_accentuated_char_no_quotes");
	N("[\"\\\0\"]", "at byte 2: invalid escape: a backslash followed by byte 0x00",
	  "n_string_backslash_00");
	N("[\"\\x00\"]", "at byte 2: invalid escape '\\x' in a string", "n_string_escape_x");
	N("[\"\\\\\\\"]", "at byte 7: unterminated string", "n_string_escaped_backslash_bad");
	N("[\"\\\t\"]", "at byte 2: invalid escape: a backslash followed by byte 0x09",
	  "n_string_escaped_ctrl_char_tab");
	N("[\"\\\xf0\x9f\x8c\x80\"]", "at byte 2: invalid escape: a backslash followed by byte 0xf0",
	  "n_string_escaped_emoji");
	N("[\"\\\"]", "at byte 5: unterminated string", "n_string_incomplete_escape");
	N("[\"\\u00A\"]", "at byte 2: expected 4 hex digits after \\u",
	  "n_string_incomplete_escaped_character");
	N("[\"\\uD834\\uDd\"]", "at byte 2: lone high surrogate \\uD834", "n_string_incomplete_surrogate");
	N("[\"\\uD800\\uD800\\x\"]", "at byte 2: lone high surrogate \\uD800",
	  "n_string_incomplete_surrogate_escape_invalid");
	N("[\"\\u\xe5\"]", "at byte 2: expected 4 hex digits after \\u",
	  "n_string_invalid-utf-8-in-escape");
	N("[\"\\a\"]", "at byte 2: invalid escape '\\a'", "n_string_invalid_backslash_esc");
	N("[\"\\uqqqq\"]", "at byte 2: expected 4 hex digits after \\u", "n_string_invalid_unicode_escape");
	N("[\"\\\xe5\"]", "at byte 2: invalid escape: a backslash followed by byte 0xe5",
	  "n_string_invalid_utf8_after_escape");
	N("[\\u0020\"asd\"]", "at byte 1: expected a value, found '\\'",
	  "n_string_leading_uescaped_thinspace");
	N("[\\n]", "at byte 1: expected a value, found '\\'", "n_string_no_quotes_with_bad_escape");
	N("\"", "at byte 1: unterminated string", "n_string_single_doublequote");
	N("['single quote']", "at byte 1: expected a value, found a single quote", "n_string_single_quote");
	N("abc", "at byte 0: expected a value, found 'a'", "n_string_single_string_no_double_quotes");
	N("[\"\\", "at byte 3: unterminated string: the input ends in an escape",
	  "n_string_start_escape_unclosed");
	N("[\"a\0a\"]", "at byte 3: raw control character 0x00 in a string",
	  "n_string_unescaped_ctrl_char");
	N("[\"new\nline\"]", "at byte 5: raw control character 0x0a in a string: write it as an "
	  "escape (\\u000a)", "n_string_unescaped_newline");
	N("[\"\t\"]", "at byte 2: raw control character 0x09", "n_string_unescaped_tab");
	N("\"\\UA66D\"", "at byte 1: invalid escape '\\U'", "n_string_unicode_CapitalU");
	N("\"\"x", "at byte 2: expected the end of the input after the value, found 'x'",
	  "n_string_with_trailing_garbage");
	N("[\"\x1f\"]", "raw control character 0x1f", "a raw 0x1f in a string");
	N("[\"\\'\"]", "invalid escape '\\''", "an escaped single quote");
	N("[\"\\0\"]", "invalid escape '\\0'", "a backslash-zero escape");
	N("[\"\\v\"]", "invalid escape '\\v'", "a \\v escape");
}

static void test_suite_n_structure(void)
{
	N("[\xe2\x81\xa0]", "at byte 1: expected a value, found byte 0xe2",
	  "n_structure_U+2060_word_joined");
	N("\xef\xbb\xbf", "at byte 0: expected a value, found byte 0xef", "n_structure_UTF8_BOM_no_data");
	N("<.>", "at byte 0: expected a value, found '<'", "n_structure_angle_bracket_.");
	N("[<null>]", "at byte 1: expected a value, found '<'", "n_structure_angle_bracket_null");
	N("[1]x", "at byte 3: expected the end of the input", "n_structure_array_trailing_garbage");
	N("[1]]", "at byte 3: expected the end of the input", "n_structure_array_with_extra_array_close");
	N("[\"asd]", "at byte 6: unterminated string", "n_structure_array_with_unclosed_string");
	N("a\xc3\xa5", "at byte 0: expected a value, found 'a'", "n_structure_ascii-unicode-identifier");
	N("[True]", "at byte 1: expected a value, found 'T'", "n_structure_capitalized_True");
	N("1]", "at byte 1: expected the end of the input after the value, found ']'",
	  "n_structure_close_unopened_array");
	N("{\"x\": true,", "at byte 11: expected a string to start an object key, found the end",
	  "n_structure_comma_instead_of_closing_brace");
	N("[][]", "at byte 2: expected the end of the input", "n_structure_double_array");
	N("]", "at byte 0: expected a value, found ']'", "n_structure_end_array");
	N("\xef\xbb{}", "at byte 0: expected a value, found byte 0xef", "n_structure_incomplete_UTF8_BOM");
	N("\xe5", "at byte 0: expected a value, found byte 0xe5", "n_structure_lone-invalid-utf-8");
	N("[", "at byte 1: expected a value, found the end of the input", "n_structure_lone-open-bracket");
	N("", "at byte 0: expected a value, found the end of the input", "n_structure_no_data");
	N("[\0]", "at byte 1: expected a value, found byte 0x00", "n_structure_null-byte-outside-string");
	N("2@", "at byte 1: expected the end of the input after the value, found '@'",
	  "n_structure_number_with_trailing_garbage");
	N("{}}", "at byte 2: expected the end of the input", "n_structure_object_followed_by_closing_object");
	N("{\"\":", "at byte 4: expected a value, found the end of the input",
	  "n_structure_object_unclosed_no_value");
	N("{\"a\": true} \"x\"", "at byte 12: expected the end of the input after the value, found '\"'",
	  "n_structure_object_with_trailing_garbage");
	N("['", "at byte 1: expected a value, found a single quote", "n_structure_open_array_apostrophe");
	N("[,", "at byte 1: expected a value, found ','", "n_structure_open_array_comma");
	N("[{", "at byte 2: expected a string to start an object key, found the end of the input",
	  "n_structure_open_array_open_object");
	N("[\"a", "at byte 3: unterminated string", "n_structure_open_array_open_string");
	N("[\"a\"", "at byte 4: expected ',' or ']'", "n_structure_open_array_string");
	N("{", "at byte 1: expected a string to start an object key, found the end of the input",
	  "n_structure_open_object");
	N("{]", "at byte 1: expected a string to start an object key, found ']'",
	  "n_structure_open_object_close_array");
	N("{,", "at byte 1: expected a string to start an object key, found ','",
	  "n_structure_open_object_comma");
	N("{[", "at byte 1: expected a string to start an object key, found '['",
	  "n_structure_open_object_open_array");
	N("{\"a", "at byte 3: unterminated string", "n_structure_open_object_open_string");
	N("{'a'", "at byte 1: expected a string to start an object key, found a single quote",
	  "n_structure_open_object_string_with_apostrophes");
	N("[\"\\{[\"\\{[\"\\{[\"\\{", "at byte 2: invalid escape '\\{'", "n_structure_open_open");
	N("\xe9", "at byte 0: expected a value, found byte 0xe9", "n_structure_single_eacute");
	N("*", "at byte 0: expected a value, found '*'", "n_structure_single_star");
	N("{\"a\":\"b\"}#{}", "at byte 9: expected the end of the input", "n_structure_trailing_#");
	N("[\\u000A\"\"]", "at byte 1: expected a value, found '\\'", "n_structure_uescaped_LF_before_string");
	N("[1", "at byte 2: expected ',' or ']' after an array element, found the end of the input",
	  "n_structure_unclosed_array");
	N("[ false, nul", "at byte 12: expected 'null', found the end of the input",
	  "n_structure_unclosed_array_partial_null");
	N("[ true, fals", "at byte 12: expected 'false', found the end of the input",
	  "n_structure_unclosed_array_unfinished_false");
	N("[ false, tru", "at byte 12: expected 'true', found the end of the input",
	  "n_structure_unclosed_array_unfinished_true");
	N("{\"asd\":\"asd\"", "at byte 12: expected ',' or '}' after an object member, found the end",
	  "n_structure_unclosed_object");
	N("\xc3\xa5", "at byte 0: expected a value, found byte 0xc3", "n_structure_unicode-identifier");
	N("[\f]", "at byte 1: expected a value, found byte 0x0c", "n_structure_whitespace_formfeed");
	N("[\v1]", "at byte 1: expected a value, found byte 0x0b", "a vertical tab is not whitespace");
	N("[\xc2\xa0" "1]", "at byte 1: expected a value, found byte 0xc2", "U+00A0 is not whitespace");
	N(" ", "at byte 1: expected a value, found the end of the input", "n_single_space");
	N("[1,2,3,]", "at byte 7: expected a value", "a trailing comma after several elements");
	N("[1]\n[2]", "at byte 4: expected the end of the input", "two values one after the other");
	N("// c\n1", "at byte 0: expected a value, found '/'", "a line comment before the value");
	N("1 /* c */", "at byte 2: expected the end of the input", "a block comment after the value");
	N("{\"a\":undefined}", "at byte 5: expected a value, found 'u'", "undefined");
	N("[true false]", "at byte 6: expected ',' or ']'", "two literals without a comma");
	N("nulll", "at byte 4: expected the end of the input after the value, found 'l'",
	  "a literal with a letter too many");
	N("TRUE", "at byte 0: expected a value, found 'T'", "a literal in capitals");
}

/* --- i_: implementation-defined in JSONTestSuite; our choice --- */

static void test_suite_i(void)
{
	N("[1.5e+9999]", "at byte 1: number out of the range of a double", "i_number_pos_double_huge_exp");
	N("[-1e+9999]", "at byte 1: number out of the range of a double", "i_number_neg_int_huge_exp");
	N("[-123123e100000]", "number out of the range of a double", "i_number_real_neg_overflow");
	N("[123123e100000]", "number out of the range of a double", "i_number_real_pos_overflow");
	N("[0.4e00669999999999999999999999999999999999999999999999999999999999999999999999"
	  "99999999999999999999999999999999999999999999999999999999999969999999006]",
	  "number out of the range of a double", "i_number_huge_exp");
	N("1e309", "number out of the range of a double", "1e309 is past DBL_MAX");
	Y("1.7976931348623157e308", "DBL_MAX itself");
	Y("[123e-10000000]", "i_number_real_underflow (reads as 0)");
	Y("[-123123123123123123123123123123]", "i_number_too_big_neg_int (as a double)");
	Y("[100000000000000000000]", "i_number_too_big_pos_int (as a double)");
	Y("[-237462374673276894279832749832423479823246327846]", "i_number_very_big_negative_int");
	N("\xff\xfe[\0\"\0\xe9\0\"\0]\0", "at byte 0: expected a value, found byte 0xff",
	  "i_string_UTF-16LE_with_BOM");
	N("[\"\xe6\x97\xa5\xd1\x88\xfa\"]", "at byte 7: invalid UTF-8 in a string (byte 0xfa)",
	  "i_string_UTF-8_invalid_sequence");
	N("[\"\xed\xa0\x80\"]", "at byte 2: invalid UTF-8 in a string (byte 0xed)",
	  "i_string_UTF8_surrogate_U+D800");
	N("[\"\\uD800\\n\"]", "at byte 2: lone high surrogate \\uD800",
	  "i_string_incomplete_surrogate_and_escape_valid");
	N("[\"\\uDd1ea\"]", "at byte 2: lone low surrogate \\uDD1E", "i_string_incomplete_surrogate_pair");
	N("[\"\\uD800\\uD800\\n\"]", "at byte 2: lone high surrogate \\uD800",
	  "i_string_incomplete_surrogates_escape_valid");
	N("[\"\\ud800\"]", "at byte 2: lone high surrogate \\uD800: a low surrogate (\\uDC00 to "
	  "\\uDFFF) must follow it at once", "i_string_invalid_lonely_surrogate");
	N("[\"\\ud800abc\"]", "at byte 2: lone high surrogate", "i_string_invalid_surrogate");
	N("[\"\xff\"]", "at byte 2: invalid UTF-8 in a string (byte 0xff)", "i_string_invalid_utf-8");
	N("[\"\\uDd1e\\uD834\"]", "at byte 2: lone low surrogate \\uDD1E: it must follow a high "
	  "surrogate", "i_string_inverted_surrogates_U+1D11E");
	N("[\"\xe9\"]", "at byte 2: invalid UTF-8", "i_string_iso_latin_1");
	N("[\"\\uDFAA\"]", "at byte 2: lone low surrogate \\uDFAA", "i_string_lone_second_surrogate");
	N("[\"\x81\"]", "at byte 2: invalid UTF-8", "i_string_lone_utf8_continuation_byte");
	N("[\"\xf4\xbf\xbf\xbf\"]", "at byte 2: invalid UTF-8", "i_string_not_in_unicode_range");
	N("[\"\xc0\xaf\"]", "at byte 2: invalid UTF-8 in a string (byte 0xc0)",
	  "i_string_overlong_sequence_2_bytes");
	N("[\"\xfc\x83\xbf\xbf\xbf\xbf\"]", "at byte 2: invalid UTF-8",
	  "i_string_overlong_sequence_6_bytes");
	N("[\"\xfc\x80\x80\x80\x80\x80\"]", "at byte 2: invalid UTF-8",
	  "i_string_overlong_sequence_6_bytes_null");
	N("[\"\xe0\xff\"]", "at byte 2: invalid UTF-8", "i_string_truncated-utf-8");
	N("\0[\0\"\0\xe9\0\"\0]", "at byte 0: expected a value, found byte 0x00", "i_string_utf16BE_no_BOM");
	N("[\0\"\0\xe9\0\"\0]\0", "at byte 1: expected a value, found byte 0x00", "i_string_utf16LE_no_BOM");
	N("\xef\xbb\xbf{}", "at byte 0: expected a value, found byte 0xef",
	  "i_structure_UTF-8_BOM_empty_object");
	N("{\"a\":1,\"a\":2}", "at byte 7: duplicate key \"a\" in an object",
	  "y_object_duplicated_key (our choice)");
	N("{\"a\":\"b\",\"a\":\"b\"}", "at byte 9: duplicate key \"a\"",
	  "y_object_duplicated_key_and_value (our choice)");
}

/* Raw UTF-8 in strings: every boundary of the well-formed ranges is
 * accepted and kept; every kind of ill-formed sequence is refused. */
static void test_utf8(void)
{
	static const struct {
		const char *s;
		const char *title;
	} good[] = {
		{"\xc2\x80", "U+0080 (C2 80)"},
		{"\xdf\xbf", "U+07FF (DF BF)"},
		{"\xe0\xa0\x80", "U+0800 (E0 A0 80)"},
		{"\xed\x9f\xbf", "U+D7FF (ED 9F BF)"},
		{"\xee\x80\x80", "U+E000 (EE 80 80)"},
		{"\xef\xbf\xbf", "U+FFFF (EF BF BF)"},
		{"\xf0\x90\x80\x80", "U+10000 (F0 90 80 80)"},
		{"\xf0\x9f\x98\x80", "U+1F600"},
		{"\xf4\x8f\xbf\xbf", "U+10FFFF (F4 8F BF BF)"},
	};
	for (size_t i = 0; i < ARRAY_LEN(good); i++) {
		char *doc = xasprintf("\"a%sb\"", good[i].s);
		struct jv *v = jv_parse(doc, strlen(doc), NULL, err, sizeof(err));
		char *want = xasprintf("a%sb", good[i].s);
		is_str(jv_str(v), want, "raw %s in a string is kept", good[i].title);
		jv_free(v);
		free(want);
		free(doc);
	}
	static const struct {
		const char *s;
		const char *title;
	} bad[] = {
		{"\x80", "a lone continuation byte"},
		{"\xbf", "a lone continuation byte BF"},
		{"\xc0\x80", "overlong NUL (C0 80)"},
		{"\xc1\xbf", "overlong (C1 BF)"},
		{"\xe0\x80\xaf", "overlong slash (E0 80 AF)"},
		{"\xe0\x9f\xbf", "overlong U+07FF (E0 9F BF)"},
		{"\xf0\x80\x80\xaf", "overlong slash (F0 80 80 AF)"},
		{"\xf0\x8f\xbf\xbf", "overlong U+FFFF (F0 8F BF BF)"},
		{"\xed\xa0\x80", "surrogate U+D800 (ED A0 80)"},
		{"\xed\xbf\xbf", "surrogate U+DFFF (ED BF BF)"},
		{"\xed\xa0\xbd\xed\xb8\x80", "a CESU-8 surrogate pair"},
		{"\xf4\x90\x80\x80", "U+110000 (F4 90 80 80)"},
		{"\xf5\x80\x80\x80", "an F5 lead byte"},
		{"\xf8\x88\x80\x80\x80", "a 5-byte form"},
		{"\xfe", "FE"},
		{"\xff", "FF"},
		{"\xc3", "a 2-byte sequence cut by the quote"},
		{"\xe2\x82", "a 3-byte sequence cut by the quote"},
		{"\xf0\x9f\x98", "a 4-byte sequence cut by the quote"},
		{"\xc3x", "a 2-byte lead followed by ASCII"},
		{"\xe2\x82x", "a 3-byte sequence cut by ASCII"},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		char *doc = xasprintf("\"a%sb\"", bad[i].s);
		char *title = xasprintf("raw %s in a string", bad[i].title);
		reject(doc, strlen(doc), "at byte 2: invalid UTF-8 in a string", title);
		free(title);
		free(doc);
	}
	/* A sequence cut by the end of the input, not by a quote. */
	N("\"\xe2\x82", "at byte 1: invalid UTF-8", "a 3-byte sequence cut by the end of the input");
	N("{\"\xed\xa0\x80\":1}", "at byte 2: invalid UTF-8", "an encoded surrogate in a key");
}

/* --- the tree --- */

static void test_tree(void)
{
	struct jv *v = P("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"exec\",\"arguments\":{\"argv\":[\"ls\",\"-l\"],"
			 "\"timeout\":1.5,\"tty\":false,\"env\":null}}}");
	ok(jv_is(v, JV_OBJECT), "a JSON-RPC request reads as an object");
	is_int((long long)jv_count(v), 4, "with 4 members");
	is_str(v->obj.members[0].key, "jsonrpc", "members in document order: first");
	is_str(v->obj.members[3].key, "params", "members in document order: last");
	is_str(jv_str(jv_get(v, "jsonrpc")), "2.0", "jv_get then jv_str");
	long long id = 0;
	ok(jv_int(jv_get(v, "id"), &id) && id == 7, "jv_int reads the id");
	const struct jv *args = jv_get(jv_get(v, "params"), "arguments");
	const struct jv *argv = jv_get(args, "argv");
	ok(jv_is(argv, JV_ARRAY) && jv_count(argv) == 2, "a nested array of 2");
	is_str(jv_str(jv_at(argv, 0)), "ls", "jv_at 0");
	is_str(jv_str(jv_at(argv, 1)), "-l", "jv_at 1");
	ok(jv_at(argv, 2) == NULL, "jv_at past the end is NULL");
	double d = 0;
	ok(jv_double(jv_get(args, "timeout"), &d) && d == 1.5, "jv_double reads 1.5");
	ok(!jv_int(jv_get(args, "timeout"), &id) && id == 7, "jv_int refuses 1.5, out untouched");
	bool b = true;
	ok(jv_bool(jv_get(args, "tty"), &b) && !b, "jv_bool reads false");
	ok(jv_is(jv_get(args, "env"), JV_NULL), "a null member is there, of type null");
	ok(jv_get(args, "missing") == NULL, "a missing key gives NULL");
	ok(jv_get(argv, "ls") == NULL, "jv_get on an array gives NULL");
	ok(jv_get(NULL, "x") == NULL && jv_str(NULL) == NULL && jv_count(NULL) == 0 &&
	   jv_at(NULL, 0) == NULL && !jv_is(NULL, JV_NULL) && !jv_int(NULL, &id) &&
	   !jv_bool(NULL, &b) && !jv_double(NULL, &d) && jv_strn(NULL, NULL) == NULL,
	   "every accessor takes NULL");
	ok(jv_str(jv_get(v, "id")) == NULL, "jv_str of a number is NULL");
	ok(!jv_bool(jv_get(v, "id"), &b), "jv_bool of a number is false");
	ok(!jv_int(jv_get(v, "jsonrpc"), &id), "jv_int of a string is false");
	ok(jv_at(v, 0) == NULL, "jv_at on an object is NULL");
	is_str(jv_type_name(JV_OBJECT), "object", "jv_type_name");
	jv_free(v);

	v = P("[[],{},[[]],\"\",0]");
	ok(v && jv_count(v) == 5 && jv_count(jv_at(v, 0)) == 0 && jv_count(jv_at(v, 1)) == 0 &&
	   jv_is(jv_at(v, 1), JV_OBJECT) && jv_count(jv_at(jv_at(v, 2), 0)) == 0,
	   "empty containers");
	size_t n = 9;
	ok(jv_strn(jv_at(v, 3), &n) && n == 0 && jv_str(jv_at(v, 3))[0] == '\0',
	   "an empty string has length 0 and a NUL");
	jv_free(v);

	v = P("  \"top\"  ");
	is_str(jv_str(v), "top", "a string at the top");
	jv_free(v);
	v = P("null");
	ok(jv_is(v, JV_NULL), "null at the top");
	jv_free(v);
	v = P("true");
	ok(jv_bool(v, &b) && b, "true at the top");
	jv_free(v);

	/* Every member of a large object in order, and found by key. */
	struct sbuf doc = {0};
	sbuf_addc(&doc, '{');
	for (int i = 0; i < 2000; i++)
		sbuf_addf(&doc, "%s\"k%d\":%d", i ? "," : "", i, i);
	sbuf_addc(&doc, '}');
	v = parse_ok(doc.buf, doc.len);
	bool all = v && jv_count(v) == 2000;
	for (int i = 0; all && i < 2000; i++) {
		char key[16];
		snprintf(key, sizeof(key), "k%d", i);
		long long x = -1;
		all = jv_int(jv_get(v, key), &x) && x == i && strcmp(v->obj.members[i].key, key) == 0;
	}
	ok(all, "an object of 2000 members: each in order and found by key");
	jv_free(v);
	sbuf_free(&doc);

	jv_free(NULL);
	ok(true, "jv_free(NULL) does nothing");
}

/* --- numbers --- */

static void num_int(const char *text, long long want)
{
	struct jv *v = jv_parse(text, strlen(text), NULL, err, sizeof(err));
	long long got = 0;
	bool r = jv_int(v, &got);
	ok(r && got == want, "%s is the integer %lld", text, want);
	if (!r || got != want)
		diag("jv_int returned %d with %lld; error: %s", r, got, v ? "(none)" : err);
	if (v && r && v->num.d != (double)want)
		diag("but the double is %.17g", v->num.d);
	jv_free(v);
}

static void num_real(const char *text, double want)
{
	struct jv *v = jv_parse(text, strlen(text), NULL, err, sizeof(err));
	long long i = 12345;
	bool good = v && v->type == JV_NUMBER && !jv_int(v, &i) && i == 12345 && !v->num.is_int &&
		    v->num.d == want;
	ok(good, "%s is not an integer in range; its double is %.17g", text, want);
	if (!good && v)
		diag("is_int %d, i %lld, d %.17g", v->num.is_int, v->num.i, v->num.d);
	else if (!v)
		diag("error: %s", err);
	jv_free(v);
}

static void test_numbers(void)
{
	num_int("0", 0);
	num_int("-0", 0);
	num_int("42", 42);
	num_int("-42", -42);
	num_int("4.2e1", 42);
	num_int("420e-1", 42);
	num_int("0.42E+2", 42);
	num_int("12.3400e2", 1234);
	num_int("1e0", 1);
	num_int("1.0", 1);
	num_int("100e-2", 1);
	num_int("0.0", 0);
	num_int("0e999999999999999999", 0);
	num_int("-0.000e-5", 0);
	num_int("1e18", 1000000000000000000LL);
	num_int("9223372036854775807", LLONG_MAX);
	num_int("-9223372036854775808", LLONG_MIN);
	num_int("922337203685477580.7e1", LLONG_MAX);
	num_int("-92233720368547758.08e2", LLONG_MIN);
	num_int("9223372036854775807.000", LLONG_MAX);
	num_int("0.000000000000000000000000000000000000009223372036854775807e57", LLONG_MAX);
	num_int("9007199254740993", 9007199254740993LL); /* not exact as a double: i is */
	num_real("9223372036854775808", 9223372036854775808.0);
	num_real("-9223372036854775809", -9223372036854775808.0);
	num_real("18446744073709551616", 18446744073709551616.0);
	num_real("1e19", 1e19);
	num_int("92233720368547758070e-1", LLONG_MAX);
	num_real("92233720368547758080e-1", 9223372036854775808.0);
	num_real("1.5", 1.5);
	num_real("-0.5", -0.5);
	num_real("1e-1", 0.1);
	num_real("1.00000000000000000001", 1.0);
	num_real("1e-400", 0.0);
	num_real("1e308", 1e308);
	num_real("4.9e-324", 4.9e-324);
	num_real("123e65", 123e65);

	struct jv *v = P("[1.50, -0, 1E+2]");
	ok(v && strcmp(v->arr.items[0].num.text, "1.50") == 0 && v->arr.items[0].num.text_len == 4,
	   "a number keeps its text as written (1.50)");
	ok(v && strcmp(v->arr.items[1].num.text, "-0") == 0 && signbit(v->arr.items[1].num.d),
	   "-0 keeps its text and its sign in the double");
	ok(v && strcmp(v->arr.items[2].num.text, "1E+2") == 0 && v->arr.items[2].num.d == 100,
	   "1E+2 keeps its text and reads as 100");
	jv_free(v);
}

/* --- strings --- */

static void str_is(const char *doc, size_t n, const char *want, size_t wn, const char *title)
{
	struct jv *v = jv_parse(doc, n, NULL, err, sizeof(err));
	size_t len = 0;
	const char *s = jv_strn(v, &len);
	is_mem(s, len, want, wn, "%s", title);
	if (!v)
		diag("error: %s", err);
	jv_free(v);
}

#define S(doc, want, title) str_is(doc, sizeof(doc) - 1, want, sizeof(want) - 1, title)

static void test_strings(void)
{
	S("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", "the eight short escapes");
	S("\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac", "\\u escapes of 1, 2 and 3 bytes");
	S("\"\\u007f\\u0080\\u07ff\\u0800\\uffff\"", "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf",
	  "\\u escapes at the UTF-8 length boundaries");
	S("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", "a surrogate pair becomes one 4-byte sequence");
	S("\"\\uD800\\uDC00\"", "\xf0\x90\x80\x80", "the first pair is U+10000");
	S("\"\\uDBFF\\uDFFF\"", "\xf4\x8f\xbf\xbf", "the last pair is U+10FFFF");
	S("\"x\\uD834\\uDD1Ey\"", "x\xf0\x9d\x84\x9ey", "a pair between letters");
	S("\"\\ud83d\\ude00\\ud83d\\ude00\"", "\xf0\x9f\x98\x80\xf0\x9f\x98\x80", "two pairs in a row");
	S("\"\\u0000\"", "\0", "\\u0000 is one NUL byte");
	S("\"a\\u0000b\\u0000\"", "a\0b\0", "NULs inside and at the end keep the length");
	S("\"\x7f\"", "\x7f", "a raw DEL is allowed");
	N("\"\\uD800\"", "at byte 1: lone high surrogate", "a high surrogate at the end of a string");
	N("\"\\uD800x\"", "at byte 1: lone high surrogate", "a high surrogate then a letter");
	N("\"\\uD800\\u0041\"", "at byte 1: lone high surrogate", "a high surrogate then a non-surrogate");
	N("\"\\uD800\\uD800\"", "at byte 1: lone high surrogate", "two high surrogates");
	N("\"\\uDC00\"", "at byte 1: lone low surrogate \\uDC00", "a lone low surrogate");
	N("\"\\uDC00\\uD800\"", "at byte 1: lone low surrogate", "a pair in the wrong order");
	N("\"a\\uD800", "at byte 2: lone high surrogate", "a high surrogate and the end of the input");
	N("\"\\u12", "at byte 1: expected 4 hex digits", "a \\u escape cut by the end");
	N("\"\\u-123\"", "at byte 1: expected 4 hex digits", "a \\u escape with a sign");

	struct jv *v = P("{\"s\":\"a\\u0000b\",\"t\":\"plain\"}");
	size_t n = 0;
	ok(v && jv_str(jv_get(v, "s")) == NULL, "jv_str refuses a string holding a NUL");
	ok(v && jv_strn(jv_get(v, "s"), &n) && n == 3 && memcmp(jv_strn(jv_get(v, "s"), NULL), "a\0b", 4) == 0,
	   "jv_strn gives it whole, with its length and a NUL after");
	is_str(jv_str(jv_get(v, "t")), "plain", "jv_str of a plain string");
	jv_free(v);

	v = P("{\"a\\u0000b\":1,\"a\":2,\"a\\u0000c\":3}");
	long long x = 0;
	ok(v && jv_count(v) == 3, "keys that differ after a NUL are distinct");
	ok(jv_int(jv_getn(v, "a\0b", 3), &x) && x == 1, "jv_getn finds a key holding a NUL");
	ok(jv_int(jv_get(v, "a"), &x) && x == 2, "jv_get(\"a\") finds \"a\", not \"a\\u0000b\"");
	ok(jv_int(jv_getn(v, "a\0c", 3), &x) && x == 3, "jv_getn finds the third key");
	ok(jv_getn(v, "a\0", 2) == NULL, "a prefix of a key holding a NUL is not a key");
	ok(v && v->obj.members[0].key_len == 3, "the key length counts the NUL");
	jv_free(v);

	/* Keys are compared after unescaping. */
	N("{\"a\\u0000\":1,\"a\\u0000\":2}", "at byte 13: duplicate key \"a\\x00\" in an object",
	  "two equal keys holding a NUL");
}

/* --- limits --- */

static void nested(struct sbuf *sb, size_t depth, const char *open, const char *inner,
		   const char *close)
{
	sbuf_reset(sb);
	for (size_t i = 0; i < depth; i++)
		sbuf_adds(sb, open);
	sbuf_adds(sb, inner);
	for (size_t i = 0; i < depth; i++)
		sbuf_adds(sb, close);
}

static void test_depth(void)
{
	struct sbuf sb = {0};
	nested(&sb, 64, "[", "1", "]");
	accept(sb.buf, sb.len, "64 nested arrays (the default limit)");
	nested(&sb, 65, "[", "1", "]");
	reject(sb.buf, sb.len, "at byte 64: arrays and objects nested deeper than the limit of 64",
	       "65 nested arrays");
	nested(&sb, 64, "{\"a\":", "{}", "}");
	reject(sb.buf, sb.len, "nested deeper than the limit of 64", "65 nested objects");
	nested(&sb, 32, "{\"a\":[", "{}", "]}");
	reject(sb.buf, sb.len, "nested deeper than the limit of 64",
	       "arrays and objects in turn, 65 deep");
	nested(&sb, 32, "[{\"a\":", "1", "}]");
	accept(sb.buf, sb.len, "arrays and objects in turn, 64 deep");
	nested(&sb, 500, "[", "", "]");
	reject(sb.buf, sb.len, "at byte 64: arrays and objects nested deeper",
	       "i_structure_500_nested_arrays");
	nested(&sb, 100000, "[", "", "");
	reject(sb.buf, sb.len, "at byte 64: arrays and objects nested deeper",
	       "n_structure_100000_opening_arrays");
	nested(&sb, 100000, "{\"\":", "", "");
	reject(sb.buf, sb.len, "nested deeper", "n_structure_open_array_object-style: 100000 open objects");

	struct jv_limits lim = {.max_depth = 1};
	struct jv *v = jv_parse("[1,{}]", 6, &lim, err, sizeof(err));
	ok(v == NULL && strstr(err, "at byte 3: arrays and objects nested deeper than the limit of 1"),
	   "max_depth 1 refuses an object in an array");
	jv_free(v);
	v = jv_parse("[1,2]", 5, &lim, err, sizeof(err));
	ok(v != NULL, "max_depth 1 takes a flat array");
	jv_free(v);
	v = jv_parse("7", 1, &lim, err, sizeof(err));
	ok(v != NULL, "a scalar at the top is at depth 0");
	jv_free(v);

	/* No recursion: a depth far beyond what a recursive reader's
	 * stack would survive, parsed and freed. */
	lim.max_depth = 300000;
	nested(&sb, 250000, "[", "\"deep\"", "]");
	v = jv_parse(sb.buf, sb.len, &lim, err, sizeof(err));
	const struct jv *at = v;
	size_t depth = 0;
	while (jv_is(at, JV_ARRAY) && jv_count(at) == 1) {
		at = jv_at(at, 0);
		depth++;
	}
	ok(depth == 250000 && jv_str(at) && strcmp(jv_str(at), "deep") == 0,
	   "250000 nested arrays with a raised limit: read without recursion");
	jv_free(v);
	sbuf_free(&sb);
}

static void test_size(void)
{
	struct jv_limits lim = {.max_size = 10};
	struct jv *v = jv_parse("[1,2,3,45]", 10, &lim, err, sizeof(err));
	ok(v != NULL, "an input of exactly max_size bytes");
	jv_free(v);
	reject_lim("[1,2,3,456]", 11, &lim, "input of 11 bytes is larger than the limit of 10 bytes",
		   "an input one byte over max_size");
	reject_lim("1          ", 11, &lim, "larger than the limit of 10",
		   "trailing whitespace counts towards max_size");

	size_t big = JV_DEFAULT_MAX_SIZE;
	char *buf = xmalloc(big + 1);
	memset(buf, ' ', big + 1);
	buf[0] = '1';
	v = jv_parse(buf, big, NULL, err, sizeof(err));
	ok(v != NULL, "16 MiB of input with the default limit");
	jv_free(v);
	reject(buf, big + 1, "input of 16777217 bytes is larger than the limit of 16777216 bytes",
	       "16 MiB and a byte with the default limit");
	free(buf);
}

static void test_string_limit(void)
{
	struct jv_limits lim = {.max_string = 3};
	struct jv *v = jv_parse("[\"abc\",\"\\u00e9x\"]", 17, &lim, err, sizeof(err));
	ok(v != NULL, "strings of exactly max_string bytes, plain and escaped");
	jv_free(v);
	reject_lim("[\"abcd\"]", 8, &lim, "at byte 1: string longer than the limit of 3 bytes",
		   "a string one byte over max_string");
	reject_lim("[\"\\u00e9\\u00e9\"]", 16, &lim, "at byte 1: string longer than the limit of 3",
		   "max_string counts bytes after unescaping (2 x 2 bytes)");
	reject_lim("{\"abcd\":1}", 10, &lim, "at byte 1: string longer than the limit of 3",
		   "max_string applies to keys");
	v = jv_parse("[\"\\n\\n\\n\"]", 10, &lim, err, sizeof(err));
	ok(v != NULL, "three escapes of 2 bytes each are 3 bytes");
	jv_free(v);
}

static void test_members(void)
{
	struct jv_limits lim = {.max_members = 2};
	const char *fit = "[[1,2],{\"a\":1,\"b\":[]}]";
	struct jv *v = jv_parse(fit, strlen(fit), &lim, err, sizeof(err));
	ok(v != NULL, "containers of exactly max_members, nested");
	jv_free(v);
	reject_lim("[1,2,3]", 7, &lim, "at byte 5: more than the limit of 2 elements in an array",
		   "an array one element over max_members");
	reject_lim("{\"a\":1,\"b\":2,\"c\":3}", 19, &lim,
		   "at byte 13: more than the limit of 2 members in an object",
		   "an object one member over max_members");
	reject_lim("[[1,2,3]]", 9, &lim, "at byte 6: more than the limit of 2 elements",
		   "max_members applies to each container");

	/* The default: 1 Mi elements. */
	size_t n = JV_DEFAULT_MAX_MEMBERS;
	struct sbuf sb = {0};
	sbuf_addc(&sb, '[');
	for (size_t i = 0; i < n; i++)
		sbuf_adds(&sb, i ? ",0" : "0");
	sbuf_addc(&sb, ']');
	v = jv_parse(sb.buf, sb.len, NULL, err, sizeof(err));
	ok(v && jv_count(v) == n, "an array of 1048576 elements with the default limit");
	jv_free(v);
	sb.buf[sb.len - 1] = ',';
	sbuf_adds(&sb, "0]");
	reject(sb.buf, sb.len, "more than the limit of 1048576 elements in an array",
	       "an array of 1048577 elements with the default limit");
	sbuf_free(&sb);
}

/* --- duplicate keys --- */

static void test_duplicates(void)
{
	N("{\"a\":1,\"b\":2,\"a\":3}", "at byte 13: duplicate key \"a\" in an object",
	  "a key repeated after another");
	N("{\"a\":1,\"\\u0061\":2}", "at byte 7: duplicate key \"a\"",
	  "keys equal after unescaping (\"a\" and \"\\u0061\")");
	N("{\"\":1,\"\":2}", "at byte 6: duplicate key \"\" in an object", "two empty keys");
	N("{\"x\":{\"a\":1,\"a\":2}}", "at byte 12: duplicate key \"a\"", "in a nested object");
	N("[{\"k\":1,\"k\":1}]", "at byte 8: duplicate key \"k\"", "in an object inside an array");
	N("{\"q\\\"\\n\":1,\"q\\\"\\n\":1}", "duplicate key \"q\\\"\\x0a\"",
	  "the key is quoted in the message, control bytes escaped");
	Y("{\"a\":{\"a\":{\"a\":1}}}", "the same key in nested objects");
	Y("[{\"a\":1},{\"a\":2}]", "the same key in sibling objects");
	Y("{\"a\":1,\"A\":2,\"a \":3,\"\\u00e9\":4,\"e\\u0301\":5}", "keys that differ by case, "
	  "space or normalization are distinct");

	/* Objects above 16 members are checked by sorting; the message names
	 * the first repeated key in document order. */
	struct sbuf sb = {0};
	sbuf_addc(&sb, '{');
	for (int i = 0; i < 100; i++)
		sbuf_addf(&sb, "%s\"k%02d\":%d", i ? "," : "", i == 80 ? 10 : i == 60 ? 30 : i, i);
	sbuf_addc(&sb, '}');
	char want[80];
	size_t off = (size_t)(strstr(sb.buf, "\"k30\":60") - sb.buf);
	snprintf(want, sizeof(want), "at byte %zu: duplicate key \"k30\" in an object", off);
	reject(sb.buf, sb.len, want, "in 100 members, the earliest repeat is named");
	sbuf_reset(&sb);
	sbuf_addc(&sb, '{');
	for (int i = 0; i < 5000; i++)
		sbuf_addf(&sb, "%s\"%d\":%d", i ? "," : "", i, i);
	sbuf_addc(&sb, '}');
	accept(sb.buf, sb.len, "5000 distinct keys");
	sbuf_free(&sb);
	for (int size = 2; size <= 40; size += 19) {
		sbuf_reset(&sb);
		sbuf_addc(&sb, '{');
		for (int i = 0; i < size; i++)
			sbuf_addf(&sb, "%s\"k%d\":0", i ? "," : "", i == size - 1 ? 0 : i);
		sbuf_addc(&sb, '}');
		char title[80];
		snprintf(title, sizeof(title), "an object of %d members whose last repeats the first", size);
		reject(sb.buf, sb.len, "duplicate key \"k0\"", title);
	}
	sbuf_free(&sb);
}

/* --- messages --- */

static void test_messages(void)
{
	struct jv *v = jv_parse("{\"jsonrpc\":\"2.0\" \"id\":1}", 25, NULL, err, sizeof(err));
	is_str(err, "at byte 17: expected ',' or '}' after an object member, found '\"'",
	       "the whole message names the byte and what was expected");
	jv_free(v);
	v = jv_parse("{\"jsonrpc\" 1}", 13, NULL, err, sizeof(err));
	is_str(err, "at byte 11: expected ':' after an object key, found '1'",
	       "a missing colon");
	jv_free(v);

	char small[12];
	v = jv_parse("[1,]", 4, NULL, small, sizeof(small));
	ok(v == NULL && strcmp(small, "at byte 3: ") == 0, "a short errbuf gets a cut message, NUL-ended");
	v = jv_parse("[1,]", 4, NULL, NULL, 0);
	ok(v == NULL, "errbuf may be NULL");
	v = jv_parse(NULL, 0, NULL, err, sizeof(err));
	ok(v == NULL && strstr(err, "expected a value, found the end of the input"),
	   "NULL text of length 0 is an empty input");
	strcpy(err, "stale");
	v = jv_parse("[]", 2, NULL, err, sizeof(err));
	ok(v && err[0] == '\0', "on success errbuf is emptied");
	jv_free(v);
	v = jv_parse("[1]", 2, NULL, err, sizeof(err));
	ok(v == NULL && strstr(err, "at byte 2: expected ',' or ']'"),
	   "len bounds the read; no NUL is needed or looked for");
}

/* --- round trips through the writer --- */

static void test_round_trip(void)
{
	struct json j = {0};
	json_obj_open(&j);
	json_key(&j, "s");
	json_str(&j, "line\n\ttab \"quoted\" back\\slash \x01\x1f\x7f caf\xc3\xa9 \xf0\x9f\x98\x80");
	json_key(&j, "nul");
	json_strn(&j, "a\0b", 3);
	json_key(&j, "bad");
	json_strn(&j, "x\xffy", 3);
	json_key(&j, "min");
	json_int(&j, LLONG_MIN);
	json_key(&j, "max");
	json_int(&j, LLONG_MAX);
	json_key(&j, "list");
	json_arr_open(&j);
	json_bool(&j, true);
	json_bool(&j, false);
	json_null(&j);
	json_obj_open(&j);
	json_obj_close(&j);
	json_arr_open(&j);
	json_arr_close(&j);
	json_arr_close(&j);
	json_obj_close(&j);
	struct jv *v = parse_ok(j.out.buf, j.out.len);
	is_str(jv_str(jv_get(v, "s")),
	       "line\n\ttab \"quoted\" back\\slash \x01\x1f\x7f caf\xc3\xa9 \xf0\x9f\x98\x80",
	       "a string with escapes, control bytes and UTF-8 comes back the same");
	size_t n = 0;
	const char *s = jv_strn(jv_get(v, "nul"), &n);
	is_mem(s, n, "a\0b", 3, "a string holding a NUL comes back whole");
	is_str(jv_str(jv_get(v, "bad")), "x\xef\xbf\xbdy", "invalid UTF-8 comes back as U+FFFD");
	long long x = 0;
	ok(jv_int(jv_get(v, "min"), &x) && x == LLONG_MIN, "LLONG_MIN comes back exactly");
	ok(jv_int(jv_get(v, "max"), &x) && x == LLONG_MAX, "LLONG_MAX comes back exactly");
	const struct jv *list = jv_get(v, "list");
	bool b = false;
	ok(jv_count(list) == 5 && jv_bool(jv_at(list, 0), &b) && b && jv_bool(jv_at(list, 1), &b) &&
	   !b && jv_is(jv_at(list, 2), JV_NULL) && jv_is(jv_at(list, 3), JV_OBJECT) &&
	   jv_is(jv_at(list, 4), JV_ARRAY), "true, false, null, {} and [] come back");
	jv_free(v);
	sbuf_free(&j.out);

	/* Random byte strings and integers: the writer's output always
	 * parses; valid UTF-8 and every integer come back unchanged. */
	int unparsed = 0, changed = 0, valid = 0, ints_bad = 0;
	for (int round = 0; round < 5000; round++) {
		char in[32];
		size_t len = (size_t)(rnd() % sizeof(in));
		for (size_t i = 0; i < len; i++) {
			static const unsigned char pick[] = {0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef,
							     0xf0, 0xf4, 0xa0, 0x9f, 0x8f, 0x90, 0, '"',
							     '\\', 'u', 'd', '8'};
			unsigned r = rnd();
			in[i] = (char)(r % 3 ? pick[(r >> 2) % sizeof(pick)] : (unsigned char)(r >> 8));
		}
		long long num = (long long)((unsigned long long)rnd() << 40 ^
					    (unsigned long long)rnd() << 20 ^ rnd());
		j = (struct json){0};
		json_arr_open(&j);
		json_strn(&j, in, len);
		json_int(&j, num);
		json_arr_close(&j);
		v = jv_parse(j.out.buf, j.out.len, NULL, err, sizeof(err));
		if (!v) {
			if (unparsed++ == 0)
				diag("writer output refused: %s", err);
		} else {
			struct sbuf again = {0};
			json_quote(&again, in, len);
			bool is_valid = again.len >= 2 && strstr(again.buf, "\\ufffd") == NULL;
			const struct jv *str = jv_at(v, 0);
			if (is_valid) {
				valid++;
				if (str->str.len != len || memcmp(str->str.s, in, len) != 0)
					changed++;
			}
			if (!jv_int(jv_at(v, 1), &x) || x != num)
				ints_bad++;
			sbuf_free(&again);
		}
		jv_free(v);
		sbuf_free(&j.out);
	}
	is_int(unparsed, 0, "5000 random strings and integers written: every document parses");
	is_int(changed, 0, "the %d strings in valid UTF-8 come back byte for byte", valid);
	is_int(ints_bad, 0, "every integer comes back exactly");
}

/* --- random mutations --- */

static const char *const seeds[] = {
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
	"\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"result\":{\"content\":[{\"type\":\"text\","
	"\"text\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\n\"}],\"isError\":false}}",
	"[0,-1,1.5e10,-0.0e-0,123456789012345678901234567890,true,false,null,[],{},[[[{}]]]]",
	"{\"a\\u0000b\":\"\\u0000\",\"\":[\"\xe2\x82\xac\xf0\x9f\x98\x80\xc3\xa9\"],\"x\":{\"y\":{\"z\":[1,2,3]}}}",
	" [ \"\\/\\b\\f\\n\\r\\t\" , 9223372036854775807 , -9223372036854775808 ] ",
	"\"\\uDBFF\\uDFFF\\uD800\\uDC00\"",
	"1e308",
};

/* One random edit: flip, insert, delete, or copy a span, with a bias to
 * the bytes that matter to the grammar. */
static void mutate(struct sbuf *sb)
{
	static const char special[] = "{}[]\",:\\u0123456789eE.-+ \t\n\rtfnDdcC\x80\xbf\xc3\xed\xf0\xff";
	size_t n = sb->len;
	unsigned r = rnd();
	char c = r & 1 ? special[(r >> 1) % (sizeof(special) - 1)] : (char)(r >> 9);
	size_t at = n ? (size_t)(rnd() % n) : 0;
	switch (r % 5) {
	case 0:
		if (n)
			sb->buf[at] = c;
		break;
	case 1: {
		sbuf_addc(sb, 0);
		memmove(sb->buf + at + 1, sb->buf + at, n - at);
		sb->buf[at] = c;
		break;
	}
	case 2:
		if (n) {
			memmove(sb->buf + at, sb->buf + at + 1, n - at - 1);
			sb->len--;
			sb->buf[sb->len] = '\0';
		}
		break;
	case 3:
		if (n) {
			size_t from = (size_t)(rnd() % n), span = (size_t)(rnd() % 16);
			if (span > n - from)
				span = n - from;
			char tmp[16];
			memcpy(tmp, sb->buf + from, span);
			for (size_t i = 0; i < span; i++)
				sbuf_addc(sb, 0);
			memmove(sb->buf + at + span, sb->buf + at, n - at);
			memcpy(sb->buf + at, tmp, span);
		}
		break;
	default:
		if (n)
			sb->len = at, sb->buf[at] = '\0';
		break;
	}
}

static void test_mutations(void)
{
	int parsed = 0, refused = 0, unstable = 0, unmessaged = 0;
	struct jv_limits tight = {.max_depth = 3, .max_string = 8, .max_members = 4};
	for (int round = 0; round < 20000; round++) {
		struct sbuf sb = {0};
		sbuf_adds(&sb, seeds[round % ARRAY_LEN(seeds)]);
		int edits = 1 + (int)(rnd() % 4);
		for (int k = 0; k < edits; k++)
			mutate(&sb);
		/* Exactly len bytes, in a buffer of that size, so ASan sees any
		 * read past the end. */
		char *exact = xmalloc(sb.len ? sb.len : 1);
		memcpy(exact, sb.buf, sb.len);
		err[0] = '\0';
		struct jv *v = jv_parse(exact, sb.len, round % 4 == 3 ? &tight : NULL, err, sizeof(err));
		if (v) {
			parsed++;
			/* What parses, written back and parsed again, is the same. */
			struct json j = {0};
			emit(&j, v);
			struct jv *w = jv_parse(j.out.buf, j.out.len, round % 4 == 3 ? &tight : NULL,
						err, sizeof(err));
			if (!w || !jv_equal(v, w)) {
				if (unstable++ == 0)
					diag("not stable: %s", w ? "differs" : err);
			}
			jv_free(w);
			sbuf_free(&j.out);
		} else {
			refused++;
			if (strncmp(err, "at byte ", 8) != 0)
				unmessaged++;
		}
		jv_free(v);
		free(exact);
		sbuf_free(&sb);
	}
	diag("20000 mutated documents: %d parsed, %d refused", parsed, refused);
	ok(parsed > 100 && refused > 100, "random mutations give both outcomes");
	is_int(unstable, 0, "every mutation that parses reads the same after writing it back");
	is_int(unmessaged, 0, "every refusal comes with an \"at byte N:\" message");
}

int main(void)
{
	test_suite_y();
	test_suite_n_arrays_literals();
	test_suite_n_numbers();
	test_suite_n_objects();
	test_suite_n_strings();
	test_suite_n_structure();
	test_suite_i();
	test_utf8();
	test_tree();
	test_numbers();
	test_strings();
	test_depth();
	test_size();
	test_string_limit();
	test_members();
	test_duplicates();
	test_messages();
	test_round_trip();
	test_mutations();
	return done_testing();
}
