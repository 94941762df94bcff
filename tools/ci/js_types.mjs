#!/usr/bin/env node
// index.d.ts, the package's published types, checked against what wasm-bindgen generates
// (bindings-js/wasm/concordia_wasm.d.ts, written by bindings-js/build.sh) and against the
// JavaScript entry points, with the TypeScript compiler API of the pinned `typescript`
// devDependency:
//
// 1. the names: what api.js exports (and node.js / browser.js re-export, nothing else) is
//    what index.d.ts declares as values; each name api.js takes from the wasm module is
//    declared there with the same kind (function or class); every wasm export is either
//    published, used by api.js itself, or the module's initialiser;
// 2. each class: the same methods, static functions and constructor visibility as
//    wasm-bindgen's class;
// 3. each signature: no more parameters than the wasm function takes (an extra one would
//    be dropped silently), and assignable from wasm-bindgen's declaration under
//    `tsc --strict` (a generated program: `const f: typeof I.f = W.f`, a method as
//    `I.C["m"]` from `W.C["m"]`, a constructor's arguments as `new (...ConstructorParameters)`;
//    a declared union of string literals is compared as the `string` wasm-bindgen has);
//    where wasm-bindgen knows a type (string, number, boolean, Uint8Array, string[], its own
//    classes, `undefined` for an Option) the declared one must agree; a JsValue is `any` there;
// 4. test/usage.ts imports every value export (its `tsc --strict` compile is
//    test/types.test.mjs).
//
//   node tools/ci/js_types.mjs      # from anywhere; exit 1 lists every difference
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = join(root, "bindings-js");
const require = createRequire(join(pkg, "package.json"));
const ts = require("typescript");
const WASM_DTS = join(pkg, "wasm/concordia_wasm.d.ts");
const WASM_SPEC = "./wasm/concordia_wasm.js";
const problems = [];

function parse(path) {
  return ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
}
const exported = (n) => ts.getCombinedModifierFlags(n) & ts.ModifierFlags.Export;
const isDefault = (n) => ts.getCombinedModifierFlags(n) & ts.ModifierFlags.Default;

/** The value declarations of a .d.ts: name -> {kind, node} (functions may be overloaded). */
function declarations(path) {
  const out = new Map();
  for (const s of parse(path).statements) {
    if (!exported(s) || isDefault(s) || !s.name) continue;
    if (ts.isFunctionDeclaration(s)) out.set(s.name.text, { kind: "function", node: s });
    else if (ts.isClassDeclaration(s)) out.set(s.name.text, { kind: "class", node: s });
    else if (ts.isEnumDeclaration(s)) out.set(s.name.text, { kind: "enum", node: s });
    else if (ts.isVariableStatement(s)) for (const d of s.declarationList.declarations) out.set(d.name.getText(), { kind: "const", node: d });
  }
  return out;
}

/** The ES module exports of a .js file: name -> source specifier ("" for a local). */
function jsExports(path) {
  const out = new Map(), imports = new Map(), stars = [];
  for (const s of parse(path).statements) {
    if (ts.isExportDeclaration(s)) {
      const from = s.moduleSpecifier ? s.moduleSpecifier.text : "";
      if (!s.exportClause) stars.push(from);
      else for (const e of s.exportClause.elements) out.set(e.name.text, from);
    } else if (ts.isImportDeclaration(s) && s.importClause) {
      const from = s.moduleSpecifier.text;
      if (s.importClause.name) imports.set(s.importClause.name.text, from);
      for (const e of s.importClause.namedBindings?.elements ?? []) imports.set((e.propertyName ?? e.name).text, from);
    } else if (exported(s) && s.name) {
      out.set(s.name.text, "");
    } else if (exported(s) && ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) out.set(d.name.getText(), "");
    }
  }
  return { out, imports, stars };
}

function members(cls) {
  const methods = new Map(), statics = new Map();
  let ctor = "none";
  for (const m of cls.members) {
    if (ts.isConstructorDeclaration(m)) {
      ctor = ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Private ? "private" : "public";
    } else if (ts.isMethodDeclaration(m) || ts.isPropertyDeclaration(m) || ts.isGetAccessor(m)) {
      const name = m.name.getText();
      // `[Symbol.dispose]` (wasm-bindgen's alias of free) is left out of index.d.ts: it
      // would not compile for a consumer whose lib lacks esnext.disposable.
      if (name.startsWith("__") || name === "[Symbol.dispose]" || ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Private) continue;
      (ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Static ? statics : methods).set(name, m);
    }
  }
  return { methods, statics, ctor };
}

const params = (n) => n.parameters ?? [];
function arity(where, declared, generated) {
  const d = params(declared), g = params(generated);
  if (d.length > g.length)
    problems.push(`${where}: index.d.ts declares ${d.length} parameters, wasm-bindgen's function takes ${g.length} (the extra ones would be ignored)`);
}

// ---------------------------------------------------------------- 1. names
const api = jsExports(join(pkg, "api.js"));
for (const entry of ["node.js", "browser.js"]) {
  const e = jsExports(join(pkg, entry));
  if (e.out.size !== 0 || e.stars.length !== 1 || e.stars[0] !== "./api.js")
    problems.push(`${entry}: exports more than \`export * from "./api.js"\` (${[...e.out.keys(), ...e.stars].join(", ")})`);
}
if (!existsSync(WASM_DTS)) {
  console.error(`js_types.mjs: ${WASM_DTS} is missing: run bindings-js/build.sh (wasm-bindgen with TypeScript output)`);
  process.exit(2);
}
const index = declarations(join(pkg, "index.d.ts"));
const wasm = declarations(WASM_DTS);
const sorted = (xs) => [...xs].sort();
const missing = (a, b) => sorted([...a].filter((x) => !b.has(x)));
for (const n of missing(api.out.keys(), index)) problems.push(`index.d.ts: does not declare ${n} (api.js exports it)`);
for (const n of missing(index.keys(), api.out)) problems.push(`index.d.ts: declares ${n}, which api.js does not export`);
for (const [name, from] of api.out) {
  if (from !== WASM_SPEC) continue;
  const w = wasm.get(name), i = index.get(name);
  if (!w) problems.push(`api.js: re-exports ${name}, which wasm-bindgen's module does not export`);
  else if (i && i.kind !== w.kind) problems.push(`index.d.ts: ${name} is a ${i.kind}, wasm-bindgen's is a ${w.kind}`);
}
const internal = new Set([...api.imports].filter(([, f]) => f === WASM_SPEC).map(([n]) => n));
for (const n of sorted(wasm.keys())) {
  if (api.out.get(n) === WASM_SPEC || internal.has(n) || n === "initSync") continue;
  problems.push(`wasm-bindgen's module exports ${n}: neither published by api.js nor used by it`);
}

// ---------------------------------------------------------------- 2. classes, 3. arity
const checks = []; // lines of the generated program
for (const [name, from] of api.out) {
  const i = index.get(name), w = wasm.get(name);
  if (from !== WASM_SPEC || !i || !w || i.kind !== w.kind) continue;
  if (i.kind === "function") {
    arity(name, i.node, w.node);
    checks.push(`export const f_${name}: Widened<typeof I.${name}> = W.${name};`);
    continue;
  }
  const mi = members(i.node), mw = members(w.node);
  for (const [what, a, b] of [["method", mi.methods, mw.methods], ["static function", mi.statics, mw.statics]]) {
    for (const m of missing(b.keys(), a)) problems.push(`index.d.ts: ${name} lacks the ${what} ${m} (wasm-bindgen has it)`);
    for (const m of missing(a.keys(), b)) problems.push(`index.d.ts: ${name} declares the ${what} ${m}, which wasm-bindgen's class lacks`);
  }
  if (mi.ctor !== mw.ctor) problems.push(`index.d.ts: ${name}'s constructor is ${mi.ctor}, wasm-bindgen's is ${mw.ctor}`);
  if (mi.ctor === "public" && mw.ctor === "public") {
    const ci = i.node.members.find(ts.isConstructorDeclaration), cw = w.node.members.find(ts.isConstructorDeclaration);
    arity(`new ${name}`, ci, cw);
    // The arguments only: the instance is compared member by member below.
    checks.push(`export const new_${name}: new (...a: ConstructorParameters<typeof I.${name}>) => unknown = W.${name};`);
  }
  for (const [m, node] of mi.methods) {
    if (!mw.methods.has(m) || !ts.isMethodDeclaration(node)) continue;
    arity(`${name}.${m}`, node, mw.methods.get(m));
    const key = m.startsWith("[") ? m : JSON.stringify(m);
    checks.push(`export const m_${name}_${checks.length}: Widened<I.${name}[${key}]> = w_${name}[${key}];`);
  }
  for (const [m, node] of mi.statics) {
    if (!mw.statics.has(m)) continue;
    arity(`${name}.${m}`, node, mw.statics.get(m));
    checks.push(`export const s_${name}_${m}: Widened<typeof I.${name}.${m}> = W.${name}.${m};`);
  }
}

// ---------------------------------------------------------------- 3. assignability
const classes = [...api.out].filter(([n, f]) => f === WASM_SPEC && wasm.get(n)?.kind === "class").map(([n]) => n);
const program = [
  "// Generated by tools/ci/js_types.mjs: wasm-bindgen's declarations must be assignable to index.d.ts's.",
  'import type * as I from "../../index.js";',
  'import * as W from "./concordia_wasm.js";',
  // A declared union of string literals (SessionState, "fresh" | "duplicate") is a Rust
  // String to wasm-bindgen: the result is compared as \`string\` (the values are the Node
  // tests' business); any other result type must agree as declared.
  "type Widen<T> = T extends string ? string : T;",
  "type Widened<F> = F extends (...a: infer A) => infer R ? (...a: A) => Widen<R> : F;",
  ...classes.map((c) => `declare const w_${c}: W.${c};`),
  ...checks,
  "",
].join("\n");
const dir = join(pkg, "node_modules/.concordia-js-types");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "check.ts"), program);
// wasm-bindgen's declarations without `[Symbol.dispose]` (see members()).
writeFileSync(join(dir, "concordia_wasm.d.ts"), readFileSync(WASM_DTS, "utf8").replace(/^\s*\[Symbol\.dispose\]\(\): void;\n/gm, ""));
const tsc = spawnSync(
  process.execPath,
  [join(pkg, "node_modules/typescript/bin/tsc"), "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext",
    "--target", "es2022", "--lib", "es2022,dom", join(dir, "check.ts")],
  { cwd: pkg, encoding: "utf8" },
);
if (tsc.status !== 0) {
  const lines = program.split("\n");
  for (const l of (tsc.stdout + tsc.stderr).split("\n").filter((l) => /error TS/.test(l))) {
    const at = /check\.ts\((\d+),/.exec(l);
    problems.push(`not assignable from wasm-bindgen's declaration: ${at ? lines[at[1] - 1] : ""}\n    ${l.replace(/^.*?error /, "error ")}`);
  }
  if (!problems.length) problems.push(`tsc failed: ${tsc.stdout}${tsc.stderr}`);
}

// ---------------------------------------------------------------- 4. usage.ts
const usage = jsExports(join(pkg, "test/usage.ts"));
const used = new Set(usage.imports.keys());
for (const n of missing(index.keys(), used)) problems.push(`test/usage.ts: does not use ${n} (every export is compiled once under tsc --strict)`);

for (const p of problems) console.log(p);
if (problems.length) {
  console.error(`js_types.mjs: ${problems.length} differences between index.d.ts, the JavaScript entry points and wasm-bindgen's declarations`);
  process.exit(1);
}
console.log(
  `js_types.mjs: index.d.ts declares the ${index.size} exports of api.js; ${checks.length} functions, constructors and methods are assignable from wasm-bindgen's declarations`,
);
