// Browser (and any other ES module host with fetch) entry of `concordia-rs`: fetches and
// instantiates the WebAssembly module next to this file, then exports the API
// (index.d.ts declares it).
import init from "./wasm/concordia_wasm.js";

await init({ module_or_path: new URL("./wasm/concordia_wasm_bg.wasm", import.meta.url) });

export * from "./api.js";
