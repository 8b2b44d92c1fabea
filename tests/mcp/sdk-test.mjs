// tests/mcp/sdk-test.mjs: `sandbox mcp` driven by the official TypeScript
// MCP client (@modelcontextprotocol/sdk, pinned in package.json). Prints TAP.
//
// Environment (set by tests/cli/t41-mcp-sdk.sh, or by hand):
//   SANDBOX_BIN      the binary (default: build/sandbox of this repository)
//   ENGINE           docker or podman (default docker)
//   IMAGE            image of the workspace (default sandbox-test/busybox:1)
//   CONTAINERS_CONF  for podman (default: tests/containers.conf)
//   ASAN_OPTIONS, UBSAN_OPTIONS  passed on to the server
//                    (skipped otherwise, with the reason)
//   SANDBOX_TEST_OWN_IMAGE  1: IMAGE is this run's own tag (tests/lib.sh
//                    makes one), so every new workspace of IMAGE is ours and
//                    none may be left; otherwise those checks are skipped
//
// One server (--rm) serves every case of the SDK part, in order: later cases
// use files the earlier ones wrote. A second server, spawned directly, gets
// raw lines the SDK cannot send (malformed JSON). Exits 0 when every case
// passed, 1 when one failed, 2 when the run itself broke.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const SANDBOX_BIN = process.env.SANDBOX_BIN || resolve(repo, "build/sandbox");
const ENGINE = process.env.ENGINE || "docker";
const IMAGE = process.env.IMAGE || "sandbox-test/busybox:1";
if (ENGINE === "podman" && !process.env.CONTAINERS_CONF)
	process.env.CONTAINERS_CONF = resolve(repo, "tests/containers.conf");

// The server's environment: what the engine client and the sanitizers need.
const serverEnv = {};
for (const k of ["PATH", "HOME", "CONTAINERS_CONF", "DOCKER_HOST", "CONTAINER_HOST",
	"XDG_RUNTIME_DIR", "LC_ALL", "ASAN_OPTIONS", "UBSAN_OPTIONS"]) {
	if (process.env[k] !== undefined) serverEnv[k] = process.env[k];
}
const OWN_IMAGE = process.env.SANDBOX_TEST_OWN_IMAGE === "1";
const serverArgs = ["--engine", ENGINE, "mcp", "--image", IMAGE, "--rm"];

// ---- TAP --------------------------------------------------------------

let count = 0, failed = 0;
const started = Date.now();

function diag(text) {
	for (const line of String(text).split("\n")) console.log(`# ${line}`);
}

function withTimeout(promise, ms, what) {
	let timer;
	return Promise.race([
		promise,
		new Promise((_, reject) => {
			timer = setTimeout(() => reject(new Error(`${what}: no answer after ${ms} ms`)), ms);
		}),
	]).finally(() => clearTimeout(timer));
}

function skip(title, why) {
	count++;
	console.log(`ok ${count} - ${title} # SKIP ${why}`);
}

// test TITLE FN: one TAP line; FN throws (an assertion) to fail.
async function test(title, fn, ms = 30000) {
	count++;
	const t0 = Date.now();
	try {
		await withTimeout(Promise.resolve().then(fn), ms, title);
		console.log(`ok ${count} - ${title}`);
	} catch (err) {
		failed++;
		console.log(`not ok ${count} - ${title}`);
		diag(err && err.stack ? err.stack : String(err));
	}
	if (process.env.TEST_VERBOSE === "1") diag(`took ${Date.now() - t0} ms`);
}

// The whole run may not hang: the runner's file timeout is 300 s.
const watchdog = setTimeout(() => {
	console.log(`Bail out! the MCP SDK test still runs after 150 s`);
	process.exit(2);
}, 150000);
watchdog.unref();

// ---- helpers -----------------------------------------------------------

const sha256 = (s) => createHash("sha256").update(s, "utf8").digest("hex");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const show = (v) => JSON.stringify(v, null, 1).slice(0, 1500);

// engine ARGS: runs the engine; {status, stdout, stderr}.
function engine(...args) {
	const r = spawnSync(ENGINE, args, { encoding: "utf8", timeout: 60000 });
	return { status: r.status, stdout: r.stdout || "", stderr: r.stderr || "" };
}

// The workspaces of IMAGE on the engine: their IDs.
function workspacesOfImage() {
	const r = engine("ps", "-a", "--filter", "label=sandbox.workspace=true",
		"--format", "{{.ID}} {{.Image}}");
	if (r.status !== 0) throw new Error(`${ENGINE} ps failed: ${r.stderr}`);
	const names = new Set([IMAGE, `localhost/${IMAGE}`, `docker.io/${IMAGE}`]);
	return r.stdout.split("\n").filter(Boolean).map((l) => l.split(" "))
		.filter(([, img]) => names.has(img)).map(([id]) => id);
}

// ---- the SDK client ---------------------------------------------------

const transport = new StdioClientTransport({
	command: SANDBOX_BIN,
	args: serverArgs,
	env: serverEnv,
	stderr: "pipe",
});
let stderrText = "";
transport.stderr.on("data", (d) => { stderrText += d.toString("utf8"); });
let serverExited = null;

const client = new Client({ name: "sandbox-sdk-test", version: "1.0.0" });
const clientErrors = [];
client.onerror = (e) => { clientErrors.push(String(e && e.message ? e.message : e)); };

const refsSeen = []; // structuredContent.workspace of every tool result

// call NAME ARGS [OPTIONS]: a tools/call; the result, its workspace noted.
async function call(name, args, options) {
	const res = await client.callTool({ name, arguments: args }, undefined, options);
	refsSeen.push({ tool: name, workspace: res.structuredContent?.workspace });
	return res;
}
const text = (res) => {
	assert.ok(Array.isArray(res.content) && res.content.length >= 1, `no content: ${show(res)}`);
	assert.equal(res.content[0].type, "text", `content[0] is not text: ${show(res)}`);
	return res.content[0].text;
};
const exec = (command, extra = {}) => call("exec", { command, ...extra });

// The ref from "sandbox mcp: workspace REF (created)", once it is logged.
async function stderrRef(ms = 3000) {
	const re = /^sandbox mcp: workspace (\S+) \(created\)$/m;
	for (const end = Date.now() + ms; ; await sleep(50)) {
		const m = stderrText.match(re);
		if (m) return m[1];
		if (Date.now() >= end) break;
	}
	throw new Error(`no "workspace REF (created)" line on stderr; stderr was:\n${stderrText}`);
}

// expectRpcError PROMISE CODE: the call is rejected with a JSON-RPC error.
async function expectRpcError(promise, code) {
	let err = null;
	try {
		const res = await promise;
		throw new Error(`expected a JSON-RPC error ${code}, got a result: ${show(res)}`);
	} catch (e) {
		err = e;
	}
	if (!(err instanceof McpError)) throw err;
	assert.equal(err.code, code, `error code: ${err.message}`);
	return err;
}

const expectedTools = {
	exec: { props: ["command", "timeout", "cwd", "env", "session", "reset", "background"], required: ["command"] },
	job_output: { props: ["job", "offset", "stderr_offset", "wait"], required: ["job"] },
	job_kill: { props: ["job", "signal"], required: ["job"] },
	job_list: { props: [], required: [] },
	diff: { props: ["path"], required: [] },
	read: { props: ["path", "offset", "limit"], required: ["path"] },
	write: { props: ["path", "content"], required: ["path", "content"] },
	edit: {
		props: ["path", "old_text", "new_text", "replace_all", "expect_sha256"],
		required: ["path", "old_text", "new_text"],
	},
	glob: { props: ["pattern", "path", "limit"], required: ["pattern"] },
	grep: {
		props: ["pattern", "path", "glob", "output_mode", "case_insensitive", "context", "limit"],
		required: ["pattern"],
	},
};

console.log(`# sandbox mcp with @modelcontextprotocol/sdk: ${SANDBOX_BIN} ${serverArgs.join(" ")}`);
let before = [];
try {
	before = workspacesOfImage();
} catch (e) {
	console.log(`Bail out! ${e.message}`);
	process.exit(2);
}

await test("connect: initialize, and the server calls itself sandbox", async () => {
	await client.connect(transport);
	transport._process?.on("exit", (code, signal) => { serverExited = { code, signal }; });
	const v = client.getServerVersion();
	assert.equal(v?.name, "sandbox", `serverInfo: ${show(v)}`);
	assert.ok(typeof v.version === "string" && v.version.length > 0, `version: ${show(v)}`);
	assert.ok(client.getServerCapabilities()?.tools, `capabilities: ${show(client.getServerCapabilities())}`);
	assert.ok(!/workspace/.test(stderrText), `a workspace before any call: ${stderrText}`);
});

await test("listTools: exactly the ten tools, their properties and required fields", async () => {
	const { tools } = await client.listTools();
	const names = tools.map((t) => t.name).sort();
	assert.deepEqual(names, Object.keys(expectedTools).sort());
	for (const t of tools) {
		const want = expectedTools[t.name];
		assert.ok(t.description && t.description.length > 20, `${t.name}: no description`);
		assert.equal(t.inputSchema.type, "object", `${t.name}: ${show(t.inputSchema)}`);
		assert.deepEqual(Object.keys(t.inputSchema.properties).sort(), [...want.props].sort(),
			`${t.name} properties`);
		assert.deepEqual([...(t.inputSchema.required || [])].sort(), [...want.required].sort(),
			`${t.name} required`);
	}
});

await test("exec: a failing command is isError, with its exit code, stdout and stderr", async () => {
	const res = await exec("echo hi; echo err >&2; exit 3");
	assert.equal(res.isError, true, show(res));
	assert.equal(res.structuredContent.exit_code, 3, show(res));
	assert.equal(res.structuredContent.stdout, "hi\n");
	assert.equal(res.structuredContent.stderr, "err\n");
	assert.equal(res.structuredContent.timed_out, false);
	assert.ok(text(res).includes("[exit code 3]"), `text: ${JSON.stringify(text(res))}`);
	assert.ok(text(res).includes("hi\n") && text(res).includes("err\n"), text(res));
}, 60000); // creates the workspace

await test("stderr names the new workspace after the first call", async () => {
	const ref = await stderrRef();
	assert.match(ref, /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/);
	assert.equal(engine("container", "inspect", ref).status, 0, `${ENGINE} does not know ${ref}`);
});

await test("exec: exit 0 is not isError", async () => {
	const res = await exec("echo ok");
	assert.equal(res.isError, false, show(res));
	assert.equal(res.structuredContent.exit_code, 0);
	assert.equal(res.structuredContent.stdout, "ok\n");
	assert.match(text(res), /^ok\n\[exit code 0\]$/);
});

await test("exec: cwd and env (in a session of their own: both carry over)", async () => {
	await exec("mkdir -p /tmp/cwdtest");
	const opts = { cwd: "/tmp/cwdtest", env: { FOO: "bar baz" }, session: "cwdtest" };
	const res = await exec('pwd; echo "$FOO"', opts);
	assert.equal(res.isError, false, show(res));
	assert.equal(res.structuredContent.stdout, "/tmp/cwdtest\nbar baz\n", show(res));
});

await test("exec: calls share the server's session: cd and export carry over; another session and reset start afresh", async () => {
	const home = (await exec("pwd", { session: "fresh" })).structuredContent.stdout;
	let res = await exec("mkdir -p /tmp/sess1 && cd /tmp/sess1 && export S1='a b' && U=1");
	assert.equal(res.isError, false, show(res));
	res = await exec('pwd; echo "$S1|${U-unset}"');
	assert.equal(res.structuredContent.stdout, "/tmp/sess1\na b|unset\n", show(res));
	res = await exec('pwd; echo "${S1-unset}"', { session: "other" });
	assert.equal(res.structuredContent.stdout, `${home}unset\n`, show(res));
	res = await exec('pwd; echo "${S1-unset}"', { reset: true });
	assert.equal(res.structuredContent.stdout, `${home}unset\n`, show(res));
	res = await exec("true", { session: "../x" });
	assert.equal(res.isError, true, show(res));
	assert.match(text(res), /session/, show(res));
});

await test("exec: exit 125, 126 and 127 are the command's own", async () => {
	for (const n of [125, 126, 127]) {
		const res = await exec(`exit ${n}`);
		assert.equal(res.structuredContent.exit_code, n, show(res));
		assert.equal(res.isError, true);
		assert.ok(text(res).includes(`[exit code ${n}]`), text(res));
	}
	// Real ones: a command not found, a file that is not executable.
	let res = await exec("no-such-command-xyz");
	assert.equal(res.structuredContent.exit_code, 127, show(res));
	assert.match(res.structuredContent.stderr, /no-such-command-xyz/);
	res = await exec("printf 'echo x\\n' >/tmp/noexec.sh && chmod 644 /tmp/noexec.sh && /tmp/noexec.sh");
	assert.equal(res.structuredContent.exit_code, 126, show(res));
});

const three = "one\ntwo\nthree\n";
await test("write then read: numbered lines, and the content's sha256", async () => {
	const w = await call("write", { path: "dir/three.txt", content: three });
	assert.equal(w.isError, false, show(w));
	assert.equal(w.structuredContent.sha256, sha256(three), show(w));
	assert.equal(w.structuredContent.bytes, Buffer.byteLength(three));
	const r = await call("read", { path: "dir/three.txt" });
	assert.equal(r.isError, false, show(r));
	assert.equal(text(r), "     1\tone\n     2\ttwo\n     3\tthree\n");
	assert.equal(r.structuredContent.sha256, sha256(three), show(r));
	assert.equal(r.structuredContent.total_lines, 3);
	// The bytes in the container, by the image's own tools.
	const c = await exec("cat dir/three.txt");
	assert.equal(c.structuredContent.stdout, three);
});

await test("write and read: UTF-8 survives, sha256 of the bytes", async () => {
	const s = "héllo wörld ✓ 😀\n";
	const w = await call("write", { path: "utf8.txt", content: s });
	assert.equal(w.structuredContent.sha256, sha256(s), show(w));
	const r = await call("read", { path: "utf8.txt" });
	assert.equal(text(r), `     1\t${s}`);
});

await test("read with offset and limit says how to continue", async () => {
	const r = await call("read", { path: "dir/three.txt", offset: 2, limit: 1 });
	assert.equal(r.isError, false, show(r));
	assert.ok(text(r).startsWith("     2\ttwo\n"), JSON.stringify(text(r)));
	assert.ok(!text(r).includes("three"), JSON.stringify(text(r)));
	assert.match(text(r), /continue with offset 3\b/);
	const last = await call("read", { path: "dir/three.txt", offset: 3 });
	assert.equal(text(last), "     3\tthree\n");
});

await test("edit a unique match: the diff, and the file changed", async () => {
	const res = await call("edit", { path: "dir/three.txt", old_text: "two", new_text: "TWO" });
	assert.equal(res.isError, false, show(res));
	assert.equal(res.structuredContent.replacements, 1);
	assert.match(text(res), /^-two$/m);
	assert.match(text(res), /^\+TWO$/m);
	assert.match(text(res), /^@@ /m);
	const r = await call("read", { path: "dir/three.txt" });
	assert.equal(r.structuredContent.sha256, sha256("one\nTWO\nthree\n"));
});

await test("edit with two matches is isError, and the file is unchanged", async () => {
	const twice = "same\nother\nsame\n";
	await call("write", { path: "twice.txt", content: twice });
	const res = await call("edit", { path: "twice.txt", old_text: "same", new_text: "new" });
	assert.equal(res.isError, true, show(res));
	const r = await call("read", { path: "twice.txt" });
	assert.equal(r.structuredContent.sha256, sha256(twice), show(r));
	assert.equal(text(r), "     1\tsame\n     2\tother\n     3\tsame\n");
	// replace_all does them both.
	const all = await call("edit", { path: "twice.txt", old_text: "same", new_text: "new", replace_all: true });
	assert.equal(all.isError, false, show(all));
	assert.equal(all.structuredContent.replacements, 2);
});

await test("edit with no match is isError", async () => {
	const res = await call("edit", { path: "twice.txt", old_text: "absent", new_text: "x" });
	assert.equal(res.isError, true, show(res));
});

await test("edit with a wrong expect_sha256 is isError; the right one works", async () => {
	const content = "alpha\nbeta\n";
	await call("write", { path: "pin.txt", content });
	const bad = await call("edit", {
		path: "pin.txt", old_text: "beta", new_text: "gamma", expect_sha256: "0".repeat(64),
	});
	assert.equal(bad.isError, true, show(bad));
	let r = await call("read", { path: "pin.txt" });
	assert.equal(r.structuredContent.sha256, sha256(content));
	const good = await call("edit", {
		path: "pin.txt", old_text: "beta", new_text: "gamma", expect_sha256: r.structuredContent.sha256,
	});
	assert.equal(good.isError, false, show(good));
	r = await call("read", { path: "pin.txt" });
	assert.equal(r.structuredContent.sha256, sha256("alpha\ngamma\n"));
});

await test("glob **/*.txt finds nested files", async () => {
	for (const p of ["g/top.txt", "g/a/b/c/deep.txt", "g/a/not.md"])
		await call("write", { path: p, content: "x\n" });
	const res = await call("glob", { pattern: "**/*.txt", path: "g" });
	assert.equal(res.isError, false, show(res));
	const got = text(res).trim().split("\n").sort();
	assert.deepEqual(got.map((p) => p.replace(/^g\//, "")), ["a/b/c/deep.txt", "top.txt"], text(res));
	const none = await call("glob", { pattern: "**/*.nothing" });
	assert.equal(none.isError, false, `no match is not an error: ${show(none)}`);
});

await test("grep content mode gives path:line:text", async () => {
	await call("write", { path: "s/one.txt", content: "first\na needle here\nlast\n" });
	await call("write", { path: "s/two.txt", content: "NEEDLE up\n" });
	const res = await call("grep", { pattern: "needle", path: "s", output_mode: "content" });
	assert.equal(res.isError, false, show(res));
	assert.equal(text(res), "s/one.txt:2:a needle here\n", show(res));
	const ci = await call("grep", {
		pattern: "needle", path: "s", output_mode: "count", case_insensitive: true,
	});
	assert.equal(text(ci), "s/one.txt:1\ns/two.txt:1\n", show(ci));
});

await test("read of a missing file is isError and names the path", async () => {
	const res = await call("read", { path: "no/such/file.txt" });
	assert.equal(res.isError, true, show(res));
	assert.ok(text(res).includes("no/such/file.txt"), text(res));
});

await test("a timeout: the call returns, and the command is killed in the container", async () => {
	const t0 = Date.now();
	const res = await exec("sleep 300 & echo $! >/tmp/bgpid; wait", { timeout: 1 });
	const took = Date.now() - t0;
	assert.ok(took < 10000, `took ${took} ms`);
	assert.equal(res.structuredContent.timed_out, true, show(res));
	assert.equal(res.isError, true);
	assert.match(text(res), /timed out/);
	const pid = await exec("cat /tmp/bgpid");
	assert.match(pid.structuredContent.stdout, /^[0-9]+\n$/, `the command did not start: ${show(pid)}`);
	const alive = await exec("kill -0 $(cat /tmp/bgpid)");
	assert.notEqual(alive.structuredContent.exit_code, 0, `the background sleep still runs: ${show(alive)}`);
	// The same check on a live process says so (the check can fail).
	const control = await exec("sleep 30 & echo $! >/tmp/bgpid3");
	const live = await exec("kill -0 $(cat /tmp/bgpid3)");
	await exec("kill $(cat /tmp/bgpid3)");
	assert.equal(control.structuredContent.exit_code, 0, show(control));
	assert.equal(live.structuredContent.exit_code, 0, `control: a live process is seen: ${show(live)}`);
}, 40000);

// The cancelled call must get no response: the SDK reports one for an
// unknown id through onerror.
const unknownIdErrors = () => clientErrors.filter((e) => /unknown message ID/i.test(e));
await test("cancel: an aborted call rejects, and its command is killed in the container", async () => {
	const ac = new AbortController();
	const t0 = Date.now();
	const p = call("exec", { command: "sleep 300 & echo $! >/tmp/bgpid2; wait" }, { signal: ac.signal });
	setTimeout(() => ac.abort("test cancel"), 1000);
	let rejected = null;
	try {
		const res = await p;
		throw new Error(`the aborted call resolved: ${show(res)}`);
	} catch (e) {
		rejected = e;
	}
	assert.ok(rejected, "no rejection");
	assert.ok(Date.now() - t0 < 5000, `rejected only after ${Date.now() - t0} ms`);
	// The server serves one call at a time: this one runs after the
	// cancelled one ended. Allow the kill a moment all the same.
	let alive;
	for (let i = 0; i < 10; i++) {
		alive = await exec("test -s /tmp/bgpid2 && ! kill -0 $(cat /tmp/bgpid2)");
		if (alive.structuredContent.exit_code === 0) break;
		await sleep(200);
	}
	assert.equal(alive.structuredContent.exit_code, 0, `the cancelled command still runs: ${show(alive)}`);
}, 40000);

await test("after a cancel the server still answers, and sent nothing for the cancelled call", async () => {
	await client.ping();
	const res = await exec("echo still here");
	assert.equal(res.structuredContent.stdout, "still here\n", show(res));
	await sleep(300);
	assert.deepEqual(unknownIdErrors(), [], "a response came for the cancelled request");
	assert.equal(serverExited, null, `the server exited: ${show(serverExited)}`);
});

await test("a ping is answered while a call runs", async () => {
	const a = exec("sleep 3");
	await sleep(300);
	const t0 = Date.now();
	await client.ping();
	const took = Date.now() - t0;
	await a;
	assert.ok(took < 1000, `the ping took ${took} ms`);
}, 20000);

await test("a cancelled request that waits its turn is not run, and gets no response", async () => {
	const errorsBefore = unknownIdErrors().length;
	await exec("rm -f /tmp/queued.txt");
	const a = exec("sleep 2");
	const ac = new AbortController();
	const b = call("write", { path: "/tmp/queued.txt", content: "late\n" }, { signal: ac.signal });
	setTimeout(() => ac.abort("test cancel of a queued call"), 300);
	await assert.rejects(b);
	await a;
	const res = await exec("test ! -e /tmp/queued.txt");
	await sleep(300);
	assert.equal(res.structuredContent.exit_code, 0, "the cancelled write was done");
	assert.deepEqual(unknownIdErrors().slice(errorsBefore), [], "a response came for the cancelled request");
}, 20000);

await test("bad arguments (read with path: 1) are a tool error the model can read (isError)", async () => {
	const bad = async (p, args, re) => {
		const res = await p;
		assert.equal(res.isError, true, `${show(args)}: ${show(res)}`);
		assert.equal(res.structuredContent.error.kind, "usage", show(res));
		assert.match(res.content[0].text, re);
	};
	await bad(call("read", { path: 1 }), { path: 1 }, /^error: argument path must be a string$/);
	await bad(call("exec", {}), {}, /needs the argument command/); // command missing
	await bad(call("grep", { pattern: "x", output_mode: "lines" }), {}, /output_mode/);
	await bad(call("read", { path: "x", bogus: true }), {}, /no argument 'bogus'/);
	const ok = await exec("echo fine");
	assert.equal(ok.structuredContent.stdout, "fine\n", "the server stopped serving");
});

await test("an unknown tool is a JSON-RPC error -32602", async () => {
	const err = await expectRpcError(client.callTool({ name: "nosuchtool", arguments: {} }), -32602);
	assert.match(err.message, /nosuchtool/);
});

// ---- background jobs ----

// startJob COMMAND: exec with background: true; the job's number.
async function startJob(command) {
	const res = await exec(command, { background: true });
	assert.equal(res.isError, false, show(res));
	assert.match(res.structuredContent.job, /^[1-9][0-9]*$/, show(res));
	assert.match(text(res), /Started job [0-9]+ in the background/, text(res));
	return res.structuredContent.job;
}

// followJob JOB: job_output from the offsets each result gives, waiting,
// until the job ended and all of its output came; what came, and the last
// result.
async function followJob(job, ms = 30000) {
	let offset = 0, stderr_offset = 0, out = "", err = "", res;
	for (const end = Date.now() + ms; Date.now() < end; ) {
		res = await call("job_output", { job, offset, stderr_offset, wait: 5 });
		assert.equal(res.isError, false, show(res));
		const s = res.structuredContent;
		assert.equal(s.stdout_start, offset, show(res));
		assert.equal(s.stderr_start, stderr_offset, show(res));
		out += s.stdout;
		err += s.stderr;
		offset = s.next_offset;
		stderr_offset = s.next_stderr_offset;
		if (!s.more) return { out, err, res };
	}
	throw new Error(`job ${job} did not end in ${ms} ms: ${show(res)}`);
}

const SERVER = `if command -v perl >/dev/null; then
	exec perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:8766", Listen => 5, ReuseAddr => 1) or die "listen: $!"; while ($c = $s->accept) { print $c "hello from job\\n"; close $c }'
else
	mkdir -p /tmp/www && echo "hello from job" >/tmp/www/index.html && exec httpd -f -p 127.0.0.1:8766 -h /tmp/www
fi`;
const CLIENT = `i=0; while [ $i -lt 100 ]; do
	if command -v perl >/dev/null; then
		perl -MIO::Socket::INET -e '$c = IO::Socket::INET->new("127.0.0.1:8766") or exit 1; print <$c>' && exit 0
	else
		wget -qO- http://127.0.0.1:8766/ 2>/dev/null && exit 0
	fi
	sleep 0.1; i=$((i + 1))
done; exit 1`;

await test("a background job outlives the call that started it, and is followed to its end", async () => {
	await exec("rm -f /tmp/go-sdk");
	const job = await startJob("echo start; while [ ! -e /tmp/go-sdk ]; do sleep 0.1; done; echo oops >&2; echo end; exit 3");
	let res = await call("job_output", { job, wait: 10 });
	assert.equal(res.structuredContent.stdout, "start\n", show(res));
	assert.equal(res.structuredContent.state, "running", show(res));
	assert.equal(res.structuredContent.more, true, show(res));
	await exec("touch /tmp/go-sdk");
	const { out, err, res: last } = await followJob(job);
	assert.equal(out, "start\nend\n");
	assert.equal(err, "oops\n");
	assert.equal(last.structuredContent.state, "exited", show(last));
	assert.equal(last.structuredContent.exit_code, 3, show(last));
	assert.match(text(last), /job [0-9]+ exited 3; that is all of its output/, text(last));
	res = await call("job_list", {});
	const row = res.structuredContent.jobs.find((j) => j.job === job);
	assert.ok(row && row.state === "exited" && row.exit_code === 3, show(res));
}, 60000);

await test("a background job starts in the session's directory and exported variables", async () => {
	await exec("mkdir -p /tmp/jobdir && cd /tmp/jobdir && export JV=42");
	const job = await startJob('pwd; echo "$JV"');
	const { out } = await followJob(job);
	assert.equal(out, "/tmp/jobdir\n42\n");
	await exec("cd /", { reset: true });
}, 60000);

await test("a server started in the background answers a later exec on loopback; job_kill stops it", async () => {
	const job = await startJob(SERVER);
	let res = await exec(CLIENT);
	assert.equal(res.structuredContent.stdout, "hello from job\n", show(res));
	res = await call("job_kill", { job });
	assert.equal(res.isError, false, show(res));
	assert.equal(res.structuredContent.outcome, "gone", show(res));
	assert.equal(res.structuredContent.state, "killed", show(res));
	assert.equal(res.structuredContent.signal, "TERM", show(res));
	res = await exec(CLIENT.replace("-lt 100", "-lt 3"));
	assert.equal(res.structuredContent.exit_code, 1, `the server still answers: ${show(res)}`);
}, 60000);

await test("job_kill with a signal sends only it, and a job started here can trap SIGINT", async () => {
	const job = await startJob('trap "echo got INT; exit 5" INT; echo ready; while :; do sleep 0.1; done');
	let res = await call("job_output", { job, wait: 10 });
	assert.equal(res.structuredContent.stdout, "ready\n", show(res));
	res = await call("job_kill", { job, signal: "INT" });
	assert.equal(res.structuredContent.outcome, "sent", show(res));
	const { out, res: last } = await followJob(job);
	assert.equal(out, "ready\ngot INT\n");
	assert.equal(last.structuredContent.exit_code, 5, show(last));
}, 60000);

await test("job_kill stops a tree that ignores TERM: KILL, and no process of it is left", async () => {
	const job = await startJob('trap "" TERM; sh -c "trap \\"\\" TERM; sleep 1003" & echo ready; sleep 1004; wait');
	let res = await call("job_output", { job, wait: 10 });
	assert.equal(res.structuredContent.stdout, "ready\n", show(res));
	const procs = "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' <$f 2>/dev/null; echo; done | grep -cxE 'sleep 100[34] '";
	res = await exec(procs);
	assert.equal(res.structuredContent.stdout, "2\n", `both sleeps run: ${show(res)}`);
	res = await call("job_kill", { job });
	assert.equal(res.structuredContent.outcome, "gone", show(res));
	assert.equal(res.structuredContent.state, "killed", show(res));
	assert.equal(res.structuredContent.signal, "KILL", show(res));
	res = await exec(procs);
	assert.equal(res.structuredContent.stdout, "0\n", `a process of the job is left: ${show(res)}`);
}, 60000);

await test("job tools: an unknown job, a bad number and a bad signal are errors the model reads", async () => {
	let res = await call("job_output", { job: "99999" });
	assert.equal(res.isError, true, show(res));
	assert.match(text(res), /job 99999: no such job/, text(res));
	res = await call("job_output", { job: "../1" });
	assert.equal(res.isError, true, show(res));
	assert.match(text(res), /not a job/, text(res));
	res = await call("job_kill", { job: "1", signal: "NOPE" });
	assert.equal(res.isError, true, show(res));
	assert.match(text(res), /signal 'NOPE': not a signal/, text(res));
	res = await call("job_output", { job: "1", wait: 301 });
	assert.equal(res.isError, true, show(res));
});

await test("every result names the workspace of stderr", async () => {
	const ref = await stderrRef(0);
	assert.ok(refsSeen.length >= 30, `only ${refsSeen.length} results`);
	const wrong = refsSeen.filter((r) => r.workspace !== ref);
	assert.deepEqual(wrong, [], `results whose workspace is not ${ref}`);
	const created = stderrText.match(/workspace \S+ \(created\)/g) || [];
	assert.equal(created.length, 1, `workspace logs: ${stderrText}`);
});

await test("close with --rm: the server exits, removes the workspace, leaves no container", async () => {
	const ref = await stderrRef(0);
	const t0 = Date.now();
	await client.close();
	const took = Date.now() - t0;
	// The transport gives the server 2 s after the end of its input, then
	// SIGTERM: a removal that needed the signal is a failure here.
	assert.ok(serverExited !== null, "the server did not exit");
	assert.equal(serverExited.signal, null, `the server was killed by ${serverExited.signal} after ${took} ms; stderr:\n${stderrText}`);
	assert.equal(serverExited.code, 0, `exit status; stderr:\n${stderrText}`);
	assert.match(stderrText, new RegExp(`^sandbox mcp: removed workspace ${ref}$`, "m"), stderrText);
	const ins = engine("container", "inspect", ref);
	assert.notEqual(ins.status, 0, `${ref} still exists: ${ins.stdout.slice(0, 500)}`);
	if (OWN_IMAGE) {
		const left = workspacesOfImage().filter((id) => !before.includes(id));
		assert.deepEqual(left, [], "workspaces left behind");
	}
	assert.deepEqual(clientErrors.filter((e) => !/unknown message ID/i.test(e)), [], "client errors");
}, 30000);

// ---- raw lines, without the SDK ------------------------------------------

// A server fed by hand: lines in, lines out.
function rawServer() {
	const child = spawn(SANDBOX_BIN, serverArgs, { env: serverEnv, stdio: ["pipe", "pipe", "pipe"] });
	const lines = [];
	let waiter = null, buf = "", err = "";
	child.stdout.setEncoding("utf8");
	child.stdout.on("data", (d) => {
		buf += d;
		let i;
		while ((i = buf.indexOf("\n")) >= 0) {
			lines.push(buf.slice(0, i));
			buf = buf.slice(i + 1);
		}
		if (waiter) waiter();
	});
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (d) => { err += d; });
	const exited = new Promise((r) => child.on("close", (code, signal) => r({ code, signal })));
	return {
		child, exited,
		stderr: () => err,
		send: (s) => child.stdin.write(s),
		async line(ms = 10000) {
			const end = Date.now() + ms;
			while (lines.length === 0) {
				if (Date.now() > end) throw new Error(`no line from the server after ${ms} ms; stderr: ${err}`);
				await new Promise((r) => { waiter = r; setTimeout(r, 100); });
				waiter = null;
			}
			const l = lines.shift();
			try {
				return JSON.parse(l);
			} catch (e) {
				throw new Error(`not JSON from the server: ${JSON.stringify(l)}`);
			}
		},
	};
}

await test("malformed JSON: error -32700 with id null, then the server goes on", async () => {
	const s = rawServer();
	try {
		s.send("{bad json\n");
		s.send('{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
		const first = await s.line();
		assert.equal(first.jsonrpc, "2.0", show(first));
		assert.ok("id" in first && first.id === null, `id: ${show(first)}`);
		assert.equal(first.error?.code, -32700, show(first));
		assert.equal(first.result, undefined);
		const second = await s.line();
		assert.equal(second.id, 7, show(second));
		assert.deepEqual(second.result, {}, show(second));
		// An unknown method: -32601, with the request's id.
		s.send('{"jsonrpc":"2.0","id":"m1","method":"no/such"}\n');
		const third = await s.line();
		assert.equal(third.id, "m1", show(third));
		assert.equal(third.error?.code, -32601, show(third));
		s.child.stdin.end();
		const ex = await withTimeout(s.exited, 10000, "exit at the end of input");
		assert.deepEqual(ex, { code: 0, signal: null }, s.stderr());
		assert.ok(!/workspace/.test(s.stderr()), `a workspace without a tool call: ${s.stderr()}`);
	} finally {
		if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
	}
});

const noneLeft = "no new workspace of the image is left at the end";
if (OWN_IMAGE) {
	await test(noneLeft, async () => {
		const left = workspacesOfImage().filter((id) => !before.includes(id));
		assert.deepEqual(left, []);
	});
} else {
	skip(noneLeft, `${IMAGE} may be shared: set SANDBOX_TEST_OWN_IMAGE=1 for a tag of this run's own`);
}

console.log(`1..${count}`);
console.log(`# ${count - failed} passed, ${failed} failed, ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
