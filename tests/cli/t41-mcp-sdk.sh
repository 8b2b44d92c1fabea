#!/bin/bash
# sandbox mcp driven by the official TypeScript MCP client
# (@modelcontextprotocol/sdk, tests/mcp): tests/mcp/sdk-test.mjs runs once,
# against one server with --rm and one fed raw lines, and each of its TAP
# results becomes a test here. node_modules comes from `npm ci` (make setup
# runs it); the file installs it itself when it is missing, and is skipped
# only when node or the package cannot be had. What it tests is the
# protocol between the two, so it runs once (t40 has the engines and images).
. "$(dirname "$0")/../lib.sh"
only_once
need_engine

MCP_DIR=$REPO_DIR/tests/mcp
SDK=$MCP_DIR/node_modules/@modelcontextprotocol/sdk/package.json

command -v node >/dev/null 2>&1 || skip_all "node is not installed (make setup installs it)"
if [ ! -f "$SDK" ] && command -v npm >/dev/null 2>&1; then
	# Both engines' legs run side by side: one npm at a time.
	(
		flock 9
		[ -f "$SDK" ] || (cd "$MCP_DIR" && npm ci --no-audit --no-fund --loglevel=error) >&2
	) 9>"${TMPDIR:-/tmp}/sandbox-test-npm.lock"
fi
[ -f "$SDK" ] || skip_all "tests/mcp/node_modules is missing and npm ci failed"

# IMAGE is this file's own tag (lib.sh): every new workspace of it is the
# server's, and none may be left.
export SANDBOX_TEST_OWN_IMAGE=1

test_expect_success 'the SDK test runs to its end (its plan matches its results)' '
	timeout -k 5 200 node "$MCP_DIR/sdk-test.mjs" >sdk.tap 2>sdk.err
	status=$? &&
	cp sdk.tap "$TRASH/.sdk.tap" &&
	echo "node exited with $status" &&
	cat sdk.err &&
	check "node exits 0 or 1 (1: a case failed, reported below)" test "$status" -le 1 &&
	plan=$(sed -n "s/^1\.\.\([0-9][0-9]*\)$/\1/p" sdk.tap) &&
	results=$(grep -cE "^(not )?ok [0-9]+ - " sdk.tap) &&
	check "a plan line" test -n "$plan" &&
	check "plan $plan, $results results" test "$plan" = "$results" &&
	check "at least 20 cases" test "$results" -ge 20 &&
	no_grep_file "^Bail out!" sdk.tap
'

# One test per case of sdk-test.mjs, with its diagnostics ("# " lines after
# it) as the output of a failure.
if [ -f "$TRASH/.sdk.tap" ]; then
	sdk_title='' sdk_ok='' sdk_diag=''
	sdk_case_() {
		[ -n "$sdk_title" ] || return 0
		case $sdk_title in
		*" # SKIP "*)
			test_count=$((test_count + 1))
			say_ "ok $test_count - mcp sdk: ${sdk_title%% # SKIP *} # SKIP ${sdk_title#* # SKIP }"
			;;
		*)
			# shellcheck disable=SC2034
			SDK_DIAG=$sdk_diag SDK_OK=$sdk_ok
			test_expect_success "mcp sdk: $sdk_title" '
				printf "%s" "$SDK_DIAG" &&
				test "$SDK_OK" = 1
			'
			;;
		esac
		sdk_title=
	}
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*" - "* | "not ok "[0-9]*" - "*)
			sdk_case_
			sdk_ok=0
			case $line in ok*) sdk_ok=1 ;; esac
			sdk_title=${line#* - }
			sdk_diag=
			;;
		1..*)
			sdk_case_
			;;
		"# "*)
			[ -n "$sdk_title" ] && sdk_diag+="${line#"# "}"$'\n'
			;;
		esac
	done <"$TRASH/.sdk.tap"
	sdk_case_
fi

test_expect_success 'no workspace of this file is left' '
	no_workspace_left
'

test_done
