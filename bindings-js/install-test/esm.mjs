// The ES module consumer: `import` of the installed package.
import * as c from "concordia-rs";
import { check } from "./check.mjs";

check(c, process.env.CONCORDIA_VERSION);
console.log("ESM import: ok");
