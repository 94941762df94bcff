// The CommonJS consumer: `require` of the installed package. The package is an ES module
// without top-level await on Node (node.js), which require() loads on Node 20.19+ and
// 22.12+; it is the same module instance as `import` gives (one copy of the WebAssembly
// and of the error classes: no dual-package hazard).
const assert = require("node:assert/strict");
const c = require("concordia-rs");

import("./check.mjs").then(async ({ check }) => {
  check(c, process.env.CONCORDIA_VERSION);
  const viaImport = await import("concordia-rs");
  assert.equal(viaImport.KeyPair, c.KeyPair);
  assert.equal(viaImport.SignatureError, c.SignatureError);
  console.log("CommonJS require: ok (the same module instance as import)");
});
