#!/bin/bash
# sandbox --version, --help, help COMMAND, and how a command line that names
# no command is answered. None of it calls an engine.
. "$(dirname "$0")/../lib.sh"
only_once

test_expect_success '--version prints "sandbox VERSION" and exits 0' '
	"$SANDBOX" --version >out 2>err &&
	grep_file -E "^sandbox [0-9]+\.[0-9]+\.[0-9]+" out &&
	line_count 1 out &&
	must_be_empty err
'

test_expect_success '--help prints the usage of every command on stdout' '
	"$SANDBOX" --help >out 2>err &&
	must_be_empty err &&
	head -n 1 out >first &&
	cmp_text "usage: sandbox [global options] COMMAND [options]" first &&
	for c in create exec run start stop destroy list prune trust help; do
		grep_file "^       sandbox $c" out || return 1
	done &&
	grep_file -e "--workspace" out &&
	grep_file -e "--engine" out &&
	grep_file -e "--json" out &&
	grep_file -e "--verbose" out
'

test_expect_success '-h is --help' '
	"$SANDBOX" --help >expect &&
	"$SANDBOX" -h >out 2>err &&
	cmp_file expect out &&
	must_be_empty err
'

test_expect_success 'help exec shows the exec usage and options' '
	"$SANDBOX" help exec >out 2>err &&
	must_be_empty err &&
	head -n 1 out >first &&
	cmp_text "usage: sandbox exec [options] [--] CMD [ARG...] | exec [options] -c TEXT" first &&
	for o in --timeout --cwd --env --interactive --max-output --workspace; do
		grep_file -e "$o" out || return 1
	done
'

test_expect_success 'exec --help is help exec' '
	"$SANDBOX" help exec >expect &&
	"$SANDBOX" exec --help >out &&
	cmp_file expect out
'

test_expect_success 'help COMMAND works for every command' '
	for c in create exec shell run start stop destroy list prune trust; do
		"$SANDBOX" help $c >out 2>err &&
		grep_file "^usage: sandbox $c" out &&
		must_be_empty err || return 1
	done
'

test_expect_success 'help of an unknown command: exit 2 and a message' '
	expect_status 2 "$SANDBOX" help frobnicate >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: help: no command ${SQ}frobnicate${SQ}" err
'

test_expect_success 'no command: the usage on stderr, exit 2' '
	expect_status 2 "$SANDBOX" >out 2>err &&
	must_be_empty out &&
	grep_file "^usage: sandbox" err
'

test_expect_success 'an unknown command: exit 2 and a one-line message' '
	expect_status 2 "$SANDBOX" frobnicate >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: unknown command ${SQ}frobnicate${SQ}; see ${SQ}sandbox --help${SQ}" err
'

test_expect_success 'an unknown global option: exit 2 and a one-line message' '
	expect_status 2 "$SANDBOX" --frobnicate list >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: unknown option ${SQ}--frobnicate${SQ}; see ${SQ}sandbox --help${SQ}" err
'

test_done
