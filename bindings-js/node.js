// Node.js entry of `concordia-rs`: instantiates the WebAssembly module synchronously from
// the package folder, then exports the API (index.d.ts declares it).
import { readFileSync } from "node:fs";
import { initSync } from "./wasm/concordia_wasm.js";

initSync({ module: readFileSync(new URL("./wasm/concordia_wasm_bg.wasm", import.meta.url)) });

export * from "./api.js";
