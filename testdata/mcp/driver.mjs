// driver.mjs drives toonkit's MCP commands with the official MCP TypeScript
// SDK's client, for internal/mcpproxy's sdk_test.go:
//
//	node driver.mjs proxy TOONKIT_BIN SERVER_ENTRY LOGFILE
//	node driver.mjs serve TOONKIT_BIN
//	node driver.mjs remote TOONKIT_BIN SERVER_ENTRY BRIDGE_ENTRY LOGFILE
//
// proxy runs `TOONKIT_BIN mcp proxy --log LOGFILE -- node SERVER_ENTRY stdio`
// in front of the reference server, server-everything (SERVER_ENTRY is its
// dist/index.js), and compares what the client gets through it with what it
// gets from the same server directly. serve runs `TOONKIT_BIN mcp serve` and
// calls each of its tools. remote starts server-everything as a
// streamable-HTTP server and runs `TOONKIT_BIN mcp proxy --log LOGFILE --
// node BRIDGE_ENTRY URL` (BRIDGE_ENTRY is mcp-remote's dist/proxy.js, the
// stdio bridge docs/commands/mcp.md names for such servers), and compares
// what the client gets through both with what it gets from the server
// directly, over HTTP.
//
// It prints one line per check, "ok NAME" or "FAIL NAME: why" (a why of
// several lines goes on in lines indented by four spaces), and exits 1 when
// a check failed. Its packages (testdata/mcp's package-lock.json) are found
// in a node_modules beside this file: the Go test runs a copy of it from a
// folder that links node_modules to the cached npm install.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { decode as toonDecode, encode as toonEncode } from "@toon-format/toon";

// A request that gets no answer fails its check after this long, rather
// than the whole run hanging until the Go test's deadline.
const TIMEOUT = { timeout: 20000 };

let failed = 0;

// check runs one named check and prints its line.
async function check(name, fn) {
  try {
    await fn();
    console.log(`ok ${name}`);
  } catch (e) {
    failed++;
    const why = String(e && e.message ? e.message : e).replace(/\n/g, "\n    ");
    console.log(`FAIL ${name}: ${why}`);
  }
}

// callError returns the error a request is answered with, or fails when it
// succeeds.
async function callError(promise) {
  try {
    const r = await promise;
    throw new Error(`no error: got ${JSON.stringify(r)}`);
  } catch (e) {
    if (e.message.startsWith("no error: ")) throw e;
    return e;
  }
}

// texts joins a tool result's text contents.
function texts(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

// What the client answers the server's requests with, and a record of the
// requests it was sent.
const SAMPLING_ANSWER = "toonkit-sampling-answer";
const ELICITED_NAME = "Toon Kit";
const ROOT = { uri: "file:///toonkit-mcp-test-root", name: "toonkit test root" };

// newClient makes a client that declares sampling, elicitation and roots
// (server-everything registers its tools for them only then) and answers
// those requests.
function newClient(name) {
  const client = new Client(
    { name, version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  client.seen = { sampling: [], elicitation: [], roots: 0 };
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    client.seen.sampling.push(req.params);
    return {
      role: "assistant",
      content: { type: "text", text: SAMPLING_ANSWER },
      model: "toonkit-test-model",
      stopReason: "endTurn",
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    client.seen.elicitation.push(req.params);
    return { action: "accept", content: { name: ELICITED_NAME, check: true } };
  });
  // server-everything asks for the roots 350 ms after the initialization,
  // and a server with that request pending does not exit when its stdin
  // closes (the request's timer keeps node running): rootsAsked lets a
  // test close the client only once the request was answered.
  let asked;
  client.rootsAsked = new Promise((resolve) => (asked = resolve));
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    client.seen.roots++;
    setImmediate(asked);
    return { roots: [ROOT] };
  });
  // Errors the SDK reports outside any request (a response to a request it
  // no longer waits for, a progress for a token it forgot) are kept, for the
  // cancellation check.
  client.errors = [];
  client.onerror = (e) => client.errors.push(String(e && e.message ? e.message : e));
  return client;
}

// connect starts command with args as the client's server and returns the
// client, with exited: a promise of the process's exit, which the SDK's
// transport does not expose (its _process is internal: it is read once,
// right after the connect).
async function connect(name, command, args, env) {
  const client = newClient(name);
  const transport = new StdioClientTransport({ command, args, env, stderr: "inherit" });
  await client.connect(transport);
  const child = transport._process;
  if (!child) throw new Error("the SDK's StdioClientTransport has no _process: cannot watch the exit");
  client.child = child;
  client.exited = new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  return client;
}

// closeAndExit closes the client (the SDK ends the child's stdin, waits 2 s,
// then sends SIGTERM) and fails unless the child exited by itself with
// status 0. For server-everything, it waits first for its roots/list
// (newClient).
async function closeAndExit(client, what, everything = false) {
  if (everything) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: server-everything never asked for the roots`)), TIMEOUT.timeout);
    });
    try {
      await Promise.race([client.rootsAsked, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
  await client.close();
  const { code, signal } = await client.exited;
  if (client.child.killed) {
    throw new Error(`${what} did not exit within 2 s of its stdin closing: the SDK sent it SIGTERM (exit code ${code}, signal ${signal})`);
  }
  if (code !== 0) throw new Error(`${what} exited with code ${code}, signal ${signal}; want 0`);
}

// The environment both servers run in: the SDK's default one and a few
// variables of the test's own, so that get-env returns the same object from
// both and that object is big enough for TOON to be surely cheaper.
function serverEnv() {
  // PWD is the same for both too: a shell between the proxy and the server
  // (a wrapper script) would set it.
  const env = { ...getDefaultEnvironment(), PWD: process.cwd() };
  for (let i = 1; i <= 12; i++) env[`TOONKIT_MCP_TEST_VAR_${i}`] = `value number ${i}`;
  return env;
}

async function proxy(toonkit, entry, logfile) {
  const node = process.execPath;
  const env = serverEnv();
  let direct, viaProxy;
  // Each tools/call sent through the proxy, and those answered with a result
  // (not a JSON-RPC error, not cancelled): the log has a line for each of
  // the latter, and for none beyond the former.
  const sent = [];
  const answered = [];
  const call = async (params, opts) => {
    sent.push(params.name);
    const r = await viaProxy.callTool(params, undefined, { ...TIMEOUT, ...opts });
    answered.push(params.name);
    return r;
  };

  await check("proxy initialize", async () => {
    direct = await connect("direct", node, [entry, "stdio"], env);
    viaProxy = await connect("via-proxy", toonkit, ["mcp", "proxy", "--log", logfile, "--", node, entry, "stdio"], env);
    const info = viaProxy.getServerVersion();
    assert.equal(info?.name, "mcp-servers/everything", `serverInfo ${JSON.stringify(info)} is not server-everything's`);
    assert.deepEqual(info, direct.getServerVersion(), "serverInfo differs from the direct server's");
    assert.deepEqual(viaProxy.getServerCapabilities(), direct.getServerCapabilities(), "capabilities differ from the direct server's");
    assert.equal(viaProxy.getInstructions(), direct.getInstructions(), "instructions differ from the direct server's");
  });
  if (!viaProxy) return;

  let directTools;
  await check("proxy tools/list is the server's", async () => {
    directTools = await direct.listTools(undefined, TIMEOUT);
    const got = await viaProxy.listTools(undefined, TIMEOUT);
    assert.deepEqual(got, directTools);
  });

  await check("proxy get-env: JSON text comes back as TOON of the same value", async () => {
    const want = await direct.callTool({ name: "get-env", arguments: {} }, undefined, TIMEOUT);
    const orig = JSON.parse(texts(want));
    assert.equal(orig.TOONKIT_MCP_TEST_VAR_1, "value number 1", "the direct server did not get the test's environment");
    const got = await call({ name: "get-env", arguments: {} });
    assert.ok(!got.isError, `isError: ${JSON.stringify(got)}`);
    assert.equal(got.content.length, want.content.length, "the number of content blocks changed");
    const text = texts(got);
    let stillJSON = true;
    try {
      JSON.parse(text);
    } catch {
      stillJSON = false;
    }
    assert.ok(!stillJSON, `the text is still JSON (not rewritten): ${JSON.stringify(text.slice(0, 200))}`);
    let value;
    try {
      value = toonDecode(text);
    } catch (e) {
      throw new Error(`@toon-format/toon cannot decode the text: ${e.message}\n${text}`);
    }
    assert.deepEqual(value, orig, "the decoded TOON is not the server's JSON value (the proxy gave the server another environment?)");
  });

  await check("proxy get-structured-content: structuredContent unchanged, text the same value", async () => {
    const params = { name: "get-structured-content", arguments: { location: "Chicago" } };
    const want = await direct.callTool(params, undefined, TIMEOUT);
    const got = await call(params);
    assert.deepEqual(got.structuredContent, want.structuredContent, "structuredContent changed");
    const text = texts(got);
    if (text !== texts(want)) {
      assert.deepEqual(toonDecode(text), want.structuredContent, `the rewritten text ${JSON.stringify(text)} is not the value`);
    }
    const { content: _a, ...restGot } = got;
    const { content: _b, ...restWant } = want;
    assert.deepEqual(restGot, restWant, "the result's other members changed");
  });

  await check("proxy text results that are not JSON are unchanged", async () => {
    for (const params of [
      { name: "get-sum", arguments: { a: 1, b: 2 } },
      { name: "echo", arguments: { message: "hello through the proxy" } },
    ]) {
      const want = await direct.callTool(params, undefined, TIMEOUT);
      assert.deepEqual(await call(params), want, `${params.name} differs`);
    }
  });

  await check("proxy error results are unchanged", async () => {
    for (const params of [
      { name: "get-sum", arguments: { a: "not a number", b: 1 } },
      { name: "no-such-tool", arguments: {} },
    ]) {
      const want = await direct.callTool(params, undefined, TIMEOUT);
      assert.equal(want.isError, true, `the direct server's ${params.name} is no error result: ${JSON.stringify(want)}`);
      assert.deepEqual(await call(params), want, `${params.name} differs`);
    }
  });

  await check("proxy JSON-RPC errors are unchanged", async () => {
    const requests = [
      // A method no one knows.
      { method: "toonkit/no-such-method", params: {} },
      // A tools/call without a tool's name: invalid params.
      { method: "tools/call", params: { arguments: {} } },
    ];
    for (const req of requests) {
      const want = await callError(direct.request(req, EmptyResultSchema, TIMEOUT));
      if (req.method === "tools/call") sent.push("(no name)");
      const got = await callError(viaProxy.request(req, EmptyResultSchema, TIMEOUT));
      assert.deepEqual(
        { code: got.code, message: got.message, data: got.data },
        { code: want.code, message: want.message, data: want.data },
        `${req.method} ${JSON.stringify(req.params)}`,
      );
    }
  });

  await check("proxy progress notifications reach the client", async () => {
    const progress = [];
    const got = await call(
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } },
      { onprogress: (p) => progress.push(p) },
    );
    assert.equal(texts(got), "Long running operation completed. Duration: 1 seconds, Steps: 2.");
    assert.ok(progress.length >= 1, "no progress notification");
    assert.deepEqual(progress[0], { progress: 1, total: 2 }, "the first progress");
  });

  await check("proxy cancellation reaches the server", async () => {
    // The cancelled call runs 1 s on the server, in 2 steps; the call after
    // it runs 2 s, started after the cancellation. The server answers in
    // the order its timers end, so if it had not heard of the cancellation
    // its answer to the first call (which the client reports as a response
    // to an unknown request) would come before the second's.
    const ac = new AbortController();
    sent.push("trigger-long-running-operation");
    const pending = viaProxy.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } },
      undefined,
      { ...TIMEOUT, signal: ac.signal, onprogress: () => ac.abort("toonkit test cancels") },
    );
    const err = await callError(pending);
    assert.ok(ac.signal.aborted, `the call ended before its first progress: ${err.message}`);
    const later = await call({ name: "trigger-long-running-operation", arguments: { duration: 2, steps: 1 } });
    assert.equal(texts(later), "Long running operation completed. Duration: 2 seconds, Steps: 1.", "the call after the cancellation");
    await viaProxy.ping(TIMEOUT);
    const late = viaProxy.errors.filter((e) => e.includes("unknown message ID"));
    assert.deepEqual(late, [], "the server answered the cancelled call: it did not get notifications/cancelled");
  });

  await check("proxy sampling: the server's request reaches the client, its answer the server", async () => {
    const got = await call({ name: "trigger-sampling-request", arguments: { prompt: "toonkit prompt", maxTokens: 10 } });
    assert.equal(viaProxy.seen.sampling.length, 1, "the client got no sampling/createMessage");
    assert.match(JSON.stringify(viaProxy.seen.sampling[0].messages), /toonkit prompt/, "the sampling request lost the prompt");
    assert.ok(texts(got).includes(SAMPLING_ANSWER), `the tool result lacks the client's answer: ${JSON.stringify(got)}`);
  });

  await check("proxy elicitation: the server's request reaches the client, its answer the server", async () => {
    const got = await call({ name: "trigger-elicitation-request", arguments: {} });
    assert.equal(viaProxy.seen.elicitation.length, 1, "the client got no elicitation/create");
    assert.ok(texts(got).includes(`- Name: ${ELICITED_NAME}`), `the tool result lacks the client's answer: ${JSON.stringify(got)}`);
  });

  await check("proxy roots: the server's roots/list reaches the client, its answer the server", async () => {
    const got = await call({ name: "get-roots-list", arguments: {} });
    assert.ok(viaProxy.seen.roots >= 1, "the client got no roots/list");
    assert.ok(texts(got).includes(ROOT.uri), `the tool result lacks the client's root: ${JSON.stringify(got)}`);
  });

  await check("proxy ping", async () => {
    assert.deepEqual(await viaProxy.ping(TIMEOUT), {});
  });

  let exitedOK = false;
  await check("proxy exits 0 when the client closes", async () => {
    await closeAndExit(viaProxy, "toonkit mcp proxy", true);
    exitedOK = true;
  });

  await check("proxy --describe adds one line on TOON to each tool's description", async () => {
    const described = await connect("describe", toonkit, ["mcp", "proxy", "--describe", "--", node, entry, "stdio"], env);
    let closed = false;
    try {
      const got = await described.listTools(undefined, TIMEOUT);
      const want = directTools || (await direct.listTools(undefined, TIMEOUT));
      assert.deepEqual(got.tools.map((t) => t.name), want.tools.map((t) => t.name), "the tools' names");
      want.tools.forEach((w, i) => {
        const g = got.tools[i];
        const desc = g.description ?? "";
        const orig = w.description ?? "";
        const prefix = orig === "" ? "" : orig + "\n";
        assert.ok(desc.startsWith(prefix), `${w.name}: ${JSON.stringify(desc)} does not start with the original and a newline`);
        const added = desc.slice(prefix.length);
        assert.ok(added !== "" && !added.includes("\n") && added.includes("TOON"), `${w.name}: the added ${JSON.stringify(added)} is not one line naming TOON`);
        assert.deepEqual({ ...g, description: orig }, { ...w, description: orig }, `${w.name}: more than the description changed`);
      });
      closed = true;
      await closeAndExit(described, "toonkit mcp proxy --describe", true);
    } finally {
      // A failed comparison still ends the proxy, its own error kept.
      if (!closed) await described.close();
    }
  });

  await check("proxy log: a line per tools/call and the totals", async () => {
    assert.ok(exitedOK, "the proxy did not exit cleanly, its log may be incomplete");
    const lines = readFileSync(logfile, "utf8").split("\n").filter((l) => l !== "");
    const records = lines.map((l, i) => {
      try {
        return JSON.parse(l);
      } catch (e) {
        throw new Error(`line ${i + 1} is not JSON: ${e.message}: ${l}`);
      }
    });
    const totals = records.filter((r) => r.event === "total");
    assert.equal(totals.length, 1, `want one "event":"total" line, have ${totals.length}`);
    assert.equal(records[records.length - 1].event, "total", "the totals line is not the last");
    // Other events the proxy may log are let be; a line without an event is
    // a tools/call's.
    const toolLines = records.filter((r) => r.event === undefined || r.tool !== undefined);
    const isSize = (s) => s && Number.isInteger(s.bytes) && Number.isInteger(s.tokens) && s.bytes >= 0 && s.tokens >= 0;
    for (const r of toolLines) {
      // The tool's name may be "": the tools/call without one.
      assert.equal(typeof r.tool, "string", `no "tool": ${JSON.stringify(r)}`);
      assert.ok(isSize(r.before) && isSize(r.after), `"before"/"after" are not {bytes, tokens}: ${JSON.stringify(r)}`);
      assert.equal(typeof r.rewritten, "boolean", `"rewritten" is not a boolean: ${JSON.stringify(r)}`);
      assert.ok("choice" in r, `no "choice": ${JSON.stringify(r)}`);
    }
    assert.ok(
      toolLines.length >= answered.length && toolLines.length <= sent.length,
      `${toolLines.length} tool lines, want between ${answered.length} (calls answered) and ${sent.length} (calls sent):\n${lines.join("\n")}`,
    );
    for (const name of new Set(answered)) {
      assert.ok(toolLines.some((r) => r.tool === name), `no line for ${name}`);
    }
    const env = toolLines.filter((r) => r.tool === "get-env");
    assert.ok(env.length === 1 && env[0].rewritten === true && env[0].after.tokens < env[0].before.tokens, `get-env's line is not a rewrite to fewer tokens: ${JSON.stringify(env)}`);
    const sums = toolLines.filter((r) => r.tool === "get-sum" || r.tool === "echo");
    assert.ok(sums.length >= 1 && sums.every((r) => r.rewritten === false), `get-sum's and echo's lines say rewritten: ${JSON.stringify(sums)}`);
  });

  await closeAndExit(direct, "server-everything", true).catch((e) => console.log(`note: ${e.message}`));
}

// freePort returns a TCP port on 127.0.0.1 that no one listened on a
// moment ago.
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// startHTTPServer starts server-everything as a streamable-HTTP server on
// port and resolves once it says it listens (its stderr is passed on).
function startHTTPServer(entry, port) {
  const child = spawn(process.execPath, [entry, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "inherit", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let said = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`server-everything streamableHttp did not listen on ${port}: ${said}`));
    }, TIMEOUT.timeout);
    child.once("exit", (code, signal) => reject(new Error(`server-everything streamableHttp exited (${code}, ${signal}): ${said}`)));
    child.stderr.on("data", (b) => {
      process.stderr.write(b);
      said += b;
      if (said.includes(`listening on port ${port}`)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

// remote checks the proxy in front of a stdio bridge to a streamable-HTTP
// server, against the client talking to that server directly.
async function remote(toonkit, entry, bridge, logfile) {
  // mcp-remote keeps its OAuth state in a folder of its own: not $HOME.
  const authDir = mkdtempSync(join(tmpdir(), "toonkit-mcp-remote-"));
  const servers = [];
  try {
    await remoteChecks(toonkit, entry, bridge, logfile, authDir, servers);
  } finally {
    // The HTTP server is no child of a client: it is ended here, whatever
    // failed.
    for (const s of servers) s.kill();
    rmSync(authDir, { recursive: true, force: true });
  }
}

async function remoteChecks(toonkit, entry, bridge, logfile, authDir, servers) {
  const node = process.execPath;
  let direct, viaProxy;
  await check("remote initialize through mcp-remote", async () => {
    const port = await freePort();
    servers.push(await startHTTPServer(entry, port));
    const url = `http://127.0.0.1:${port}/mcp`;
    direct = newClient("direct-http");
    await direct.connect(new StreamableHTTPClientTransport(new URL(url)));
    const env = { ...getDefaultEnvironment(), MCP_REMOTE_CONFIG_DIR: authDir };
    viaProxy = await connect("via-proxy-remote", toonkit, ["mcp", "proxy", "--log", logfile, "--", node, bridge, url, "--transport", "http-only"], env);
    const info = viaProxy.getServerVersion();
    assert.equal(info?.name, "mcp-servers/everything", `serverInfo ${JSON.stringify(info)} is not server-everything's`);
    assert.deepEqual(info, direct.getServerVersion(), "serverInfo differs from the direct server's");
    assert.deepEqual(viaProxy.getServerCapabilities(), direct.getServerCapabilities(), "capabilities differ from the direct server's");
  });
  if (!viaProxy) return;
  await check("remote tools/list is the server's", async () => {
    assert.deepEqual(await viaProxy.listTools(undefined, TIMEOUT), await direct.listTools(undefined, TIMEOUT));
  });
  await check("remote get-env: JSON text comes back as TOON of the same value", async () => {
    // One server answers both: the same environment.
    const params = { name: "get-env", arguments: {} };
    const want = await direct.callTool(params, undefined, TIMEOUT);
    const got = await viaProxy.callTool(params, undefined, TIMEOUT);
    assert.equal(got.content.length, want.content.length, "the number of content blocks changed");
    const text = texts(got);
    assert.notEqual(text, texts(want), "the text was not rewritten");
    assert.deepEqual(toonDecode(text), JSON.parse(texts(want)), `the rewritten text ${JSON.stringify(text)} is not the value`);
  });
  await check("remote error results and plain text are unchanged", async () => {
    for (const params of [
      { name: "get-sum", arguments: { a: "not a number", b: 1 } },
      { name: "echo", arguments: { message: "hello through the bridge" } },
    ]) {
      const want = await direct.callTool(params, undefined, TIMEOUT);
      assert.deepEqual(await viaProxy.callTool(params, undefined, TIMEOUT), want, `${params.name} differs`);
    }
  });
  await check("remote progress notifications reach the client", async () => {
    const progress = [];
    const got = await viaProxy.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } },
      undefined,
      { ...TIMEOUT, onprogress: (p) => progress.push(p) },
    );
    assert.equal(texts(got), "Long running operation completed. Duration: 1 seconds, Steps: 2.");
    assert.deepEqual(progress[0], { progress: 1, total: 2 }, "the first progress");
  });
  await check("remote sampling: the server's request reaches the client, its answer the server", async () => {
    const got = await viaProxy.callTool({ name: "trigger-sampling-request", arguments: { prompt: "toonkit remote prompt", maxTokens: 10 } }, undefined, TIMEOUT);
    assert.equal(viaProxy.seen.sampling.length, 1, "the client got no sampling/createMessage");
    assert.ok(texts(got).includes(SAMPLING_ANSWER), `the tool result lacks the client's answer: ${JSON.stringify(got)}`);
  });
  await check("remote log: get-env rewritten", async () => {
    await viaProxy.close();
    await viaProxy.exited;
    const records = readFileSync(logfile, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
    const line = records.find((r) => r.tool === "get-env");
    assert.ok(line && line.rewritten === true && line.after.tokens < line.before.tokens, `get-env's line: ${JSON.stringify(line)}`);
    assert.equal(records[records.length - 1].event, "total", "the totals line is not the last");
  });
  await direct.close();
}

// serveTool calls one of toonkit mcp serve's tools.
const serveCall = (client, name, args) => client.callTool({ name, arguments: args }, undefined, TIMEOUT);

// textOf returns a successful result's text, failing on an error result.
function textOf(result) {
  assert.ok(!result.isError, `an error result: ${JSON.stringify(result)}`);
  return texts(result);
}

// findKey returns the values of every member named key in v, at any depth.
function findKey(v, key, out = []) {
  if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (k === key) out.push(x);
      findKey(x, key, out);
    }
  }
  return out;
}

async function serve(toonkit) {
  let client;
  await check("serve initialize", async () => {
    client = await connect("serve", toonkit, ["mcp", "serve"], { ...getDefaultEnvironment() });
    const info = client.getServerVersion();
    assert.ok(info && info.name, `no serverInfo: ${JSON.stringify(info)}`);
    assert.ok(client.getServerCapabilities()?.tools, "no tools capability");
  });
  if (!client) return;

  await check("serve tools/list", async () => {
    const { tools } = await client.listTools(undefined, TIMEOUT);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    const want = {
      encode: [["json"], ["delimiter", "indent"]],
      decode: [["toon"], ["indent", "strict"]],
      stats: [["json"], ["tokenizer"]],
      query: [["filter", "input"], ["input_format"]],
      validate: [["input"], ["as", "schema"]],
    };
    for (const [name, [required, optional]] of Object.entries(want)) {
      const t = byName[name];
      assert.ok(t, `no tool ${name} among ${tools.map((t) => t.name).join(", ")}`);
      const props = Object.keys(t.inputSchema?.properties || {});
      for (const p of [...required, ...optional]) assert.ok(props.includes(p), `${name} has no argument ${p}: ${props.join(", ")}`);
      for (const p of required) assert.ok((t.inputSchema.required || []).includes(p), `${name}'s ${p} is not required`);
    }
  });

  await check("serve encode", async () => {
    assert.equal(textOf(await serveCall(client, "encode", { json: '{"a":[1,2,3]}' })), "a[3]: 1,2,3");
  });
  await check("serve encode delimiter", async () => {
    const v = { a: [1, 2, 3], t: [{ x: 1, y: "b" }, { x: 2, y: "c" }] };
    for (const [name, d] of [["tab", "\t"], ["pipe", "|"], ["comma", ","]]) {
      const got = textOf(await serveCall(client, "encode", { json: JSON.stringify(v), delimiter: name }));
      assert.equal(got, toonEncode(v, { delimiter: d }), `delimiter ${name}`);
    }
  });
  await check("serve encode indent", async () => {
    const v = { a: { b: { c: [1, 2] } }, l: [{ x: 1 }, [1, 2]] };
    const got = textOf(await serveCall(client, "encode", { json: JSON.stringify(v), indent: 4 }));
    assert.equal(got, toonEncode(v, { indent: 4 }));
  });
  await check("serve decode", async () => {
    const got = textOf(await serveCall(client, "decode", { toon: "a[3]: 1,2,3" }));
    assert.deepEqual(JSON.parse(got), { a: [1, 2, 3] });
  });
  await check("serve stats names the cheapest format", async () => {
    const v = { users: [{ id: 1, name: "Ada" }, { id: 2, name: "Bob" }, { id: 3, name: "Cy" }] };
    const got = textOf(await serveCall(client, "stats", { json: JSON.stringify(v) }));
    let report;
    try {
      report = JSON.parse(got);
    } catch (e) {
      throw new Error(`the text is not JSON: ${e.message}: ${got}`);
    }
    const formats = new Set(["json", "json-indent", "toon", "toon-comma", "toon-tab", "toon-pipe", "tabular"]);
    const named = findKey(report, "cheapest").flatMap((c) => (typeof c === "string" ? [c] : Object.values(c || {})));
    assert.ok(named.length > 0 && named.every((f) => formats.has(f)), `no "cheapest" naming a format: ${got}`);
  });
  await check("serve query JSON", async () => {
    assert.equal(textOf(await serveCall(client, "query", { filter: ".a[1]", input: '{"a":[1,2,3]}' })), "2");
  });
  await check("serve query TOON", async () => {
    const got = textOf(await serveCall(client, "query", { filter: ".a", input: "a[2]: 1,2" }));
    let v;
    try {
      v = JSON.parse(got);
    } catch {
      v = toonDecode(got);
    }
    assert.deepEqual(v, [1, 2], `the text ${JSON.stringify(got)}`);
  });
  await check("serve validate TOON error", async () => {
    const r = await serveCall(client, "validate", { input: "a[3]: 1,2" });
    assert.match(texts(r), /\bTOON\d{3}\b/, "no TOON finding");
  });
  await check("serve validate schema error", async () => {
    const r = await serveCall(client, "validate", { schema: '{"type":"object","required":["b"]}', input: '{"a":1}' });
    assert.match(texts(r), /\bSCH\d{3}\b/, "no SCH finding");
  });
  await check("serve validate valid input", async () => {
    for (const args of [{ input: "a[2]: 1,2" }, { schema: '{"type":"object","required":["a"]}', input: '{"a":1}' }]) {
      const r = await serveCall(client, "validate", args);
      assert.ok(!r.isError, `an error result for ${JSON.stringify(args)}: ${JSON.stringify(r)}`);
      assert.doesNotMatch(texts(r), /\b(TOON|SCH)\d{3}\b/, `a finding for ${JSON.stringify(args)}`);
      let report;
      try {
        report = JSON.parse(texts(r));
      } catch {
        continue;
      }
      const findings = findKey(report, "findings").flat();
      assert.deepEqual(findings, [], `findings for ${JSON.stringify(args)}`);
    }
  });
  await check("serve missing required arguments are errors", async () => {
    for (const name of ["encode", "decode", "stats", "query", "validate"]) {
      let r;
      try {
        r = await serveCall(client, name, {});
      } catch (e) {
        continue; // A JSON-RPC error (invalid params) is an error too.
      }
      assert.equal(r.isError, true, `${name} {}: ${JSON.stringify(r)}`);
    }
  });
  await check("serve encode of invalid JSON says where", async () => {
    const r = await serveCall(client, "encode", { json: '{"a":' });
    assert.equal(r.isError, true, `not an error result: ${JSON.stringify(r)}`);
    assert.match(texts(r), /\d+:\d+|1:/, "no position in the message");
  });
  await check("serve ping", async () => {
    assert.deepEqual(await client.ping(TIMEOUT), {});
  });
  await check("serve exits 0 when the client closes", async () => {
    await closeAndExit(client, "toonkit mcp serve");
  });
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "proxy" && args.length === 3) {
  await proxy(...args);
} else if (mode === "serve" && args.length === 1) {
  await serve(...args);
} else if (mode === "remote" && args.length === 4) {
  await remote(...args);
} else {
  console.error("usage: node driver.mjs proxy TOONKIT_BIN SERVER_ENTRY LOGFILE | serve TOONKIT_BIN | remote TOONKIT_BIN SERVER_ENTRY BRIDGE_ENTRY LOGFILE");
  process.exit(2);
}
if (failed > 0) {
  console.log(`${failed} checks failed`);
  process.exit(1);
}
// The clients are closed; exit now rather than wait for a timer of theirs.
process.exit(0);
