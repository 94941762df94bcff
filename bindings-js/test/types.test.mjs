// index.d.ts declares exactly what the package exports: every exported function and
// class, every public method and static constructor of each class (wasm-bindgen's own
// `__`-prefixed helpers aside), and nothing that does not exist.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import * as c from "../node.js";

const dts = readFileSync(new URL("../index.d.ts", import.meta.url), "utf8");

test("index.d.ts declares every export, and only those", () => {
  const declared = [...dts.matchAll(/^export (?:function|class) (\w+)/gm)].map((m) => m[1]).sort();
  assert.deepEqual(declared, Object.keys(c).sort());
});

test("index.d.ts declares every method of every class, and only those", () => {
  for (const [, name, body] of dts.matchAll(/^export class (\w+)[^{]*\{([^]*?)^\}/gm)) {
    const cls = c[name];
    const own = (o, skip) =>
      Object.getOwnPropertyNames(o)
        .filter((k) => !k.startsWith("__") && !skip.includes(k) && typeof o[k] === "function")
        .sort();
    const methods = [...body.matchAll(/^ {2}(?!static )(?!readonly )(\w+)\(/gm)]
      .map((m) => m[1])
      .filter((m) => m !== "constructor")
      .sort();
    const statics = [...body.matchAll(/^ {2}static (\w+)\(/gm)].map((m) => m[1]).sort();
    if (cls.prototype instanceof Error) continue; // the error classes declare fields, not methods
    assert.deepEqual(methods, own(cls.prototype, ["constructor"]), name);
    assert.deepEqual(statics, own(cls, []), name);
  }
});

test("TypeScript (tsc --strict) compiles a program against the declarations", () => {
  const pkg = fileURLToPath(new URL("..", import.meta.url));
  const tsc = spawnSync(
    process.execPath,
    [
      "node_modules/typescript/bin/tsc",
      "--noEmit",
      "--strict",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "test/usage.ts",
    ],
    { cwd: pkg, encoding: "utf8" },
  );
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
