// The real-browser test: headless Chromium (Debian's `chromium`, driven by puppeteer-core)
// loads a page served from 127.0.0.1 that imports the package's browser entry
// (browser.js: fetch + instantiate), verifies the `concordia demo` transcript and
// attestation, checks an error's class, and signs with a WebCrypto-generated key. The
// page's results are compared with what the release CLI wrote.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { after, before, test } from "node:test";
import puppeteer from "puppeteer-core";

import { demo, ROOT } from "../test/helpers.mjs";

const PKG = join(ROOT, "bindings-js");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>concordia-rs in the browser</title>
<link rel="icon" href="data:,">
<pre id="out">running</pre>
<script type="module">
  import * as c from "/pkg/browser.js";
  const text = async (path) => (await fetch(path)).text();
  const [transcript, keys, attestation] = await Promise.all(
    ["/demo/transcript.json", "/demo/keys.json", "/demo/attestation.json"].map(text));
  const result = { version: c.version() };
  result.summary = c.verifyTranscript(transcript, keys);
  result.attestation = c.verifyAttestation(attestation, keys, transcript);
  const messages = JSON.parse(transcript);
  const v = new c.TranscriptVerifier(keys);
  result.hashes = messages.map((m) => v.push(JSON.stringify(m)));
  try {
    c.verifyTranscript(JSON.stringify([messages[0], messages[2]]), keys);
    result.error = null;
  } catch (e) {
    result.error = { isError: e instanceof Error, isConcordia: e instanceof c.ConcordiaError,
      isBinding: e instanceof c.BindingError, name: e.name, code: e.code, class: e.class, message: e.message };
  }
  const kp = c.KeyPair.generate();
  const signed = kp.signObject('{"offer": {"price": 2050}}');
  c.verifySignature(signed, kp.publicKeyB64url());
  result.signed = { signed, key: kp.publicKeyB64url() };
  window.result = result;
  document.getElementById("out").textContent = "ok: " + result.summary.count + " messages, head " + result.summary.head;
</script>`;

let server;
let base;
let d;

before(async () => {
  d = demo();
  const files = {
    "/demo/transcript.json": join(d.dir, "transcript.json"),
    "/demo/keys.json": join(d.dir, "keys.json"),
    "/demo/attestation.json": join(d.dir, "attestation.json"),
  };
  server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    let file;
    if (path === "/" || path === "/index.html") {
      res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
      return;
    }
    if (files[path]) file = files[path];
    else if (path.startsWith("/pkg/")) {
      const rel = normalize(path.slice("/pkg/".length));
      if (!rel.startsWith("..")) file = join(PKG, rel);
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => server?.close());

test("headless Chromium verifies the demo transcript with the package", async () => {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    userDataDir: mkdtempSync(join(tmpdir(), "concordia-chromium-")),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto(base + "/", { waitUntil: "load" });
    await page.waitForFunction(() => window.result !== undefined, { timeout: 30_000 }).catch((e) => {
      throw new Error(`${e.message}; page problems: ${problems.join("; ")}`);
    });
    const r = await page.evaluate(() => window.result);
    const att = JSON.parse(d.attestation);
    assert.equal(r.version, "0.1.0");
    assert.deepEqual(r.summary, { count: 6, head: att.chain_head });
    assert.deepEqual(r.attestation, { parties: 2, countersignatures: 2, binding: "bound" });
    assert.equal(r.hashes.length, 6);
    assert.equal(r.hashes[5], att.chain_head);
    assert.deepEqual(r.error, {
      isError: true,
      isConcordia: true,
      isBinding: true,
      name: "BindingError",
      code: "CONCORDIA_BINDING",
      class: "binding",
      message: "message 1: binding check failed: prev_hash",
    });
    assert.match(await page.$eval("#out", (e) => e.textContent), /^ok: 6 messages, head sha256:[0-9a-f]{64}$/);
    assert.deepEqual(problems, []);
    // The browser's signature (a WebCrypto-seeded key) verifies in Node too.
    const c = await import("../node.js");
    c.verifySignature(r.signed.signed, r.signed.key);
  } finally {
    await browser.close();
  }
});
