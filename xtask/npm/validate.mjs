// Validates one .gltf or .glb file with Khronos' glTF-Validator (the `gltf-validator` npm
// package) and prints its report as one JSON object on stdout.
//
//   node xtask/npm/validate.mjs FILE [NPM_DIR]
//
// NPM_DIR (default: $QTANGENT_NPM, else target/npm beside this repository) is the folder
// `cargo xtask test` installed the pinned packages into (xtask/npm/package.json). External
// buffers and images are read next to FILE, so they are validated too. Every issue is reported
// (maxIssues 0); nothing is ignored. Exit status: 0 with a report (whatever it holds), 2 when
// the file cannot be read or the validator cannot run.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [file, dirArg] = process.argv.slice(2);
if (!file) {
    console.error('usage: node validate.mjs FILE [NPM_DIR]');
    process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const npmDir = path.resolve(dirArg || process.env.QTANGENT_NPM || path.join(here, '../../target/npm'));
// Resolve the package from the install folder, not from this script's folder.
const require = createRequire(path.join(npmDir, 'package.json'));

try {
    const validator = require('gltf-validator');
    const bytes = new Uint8Array(await readFile(file));
    const base = path.dirname(path.resolve(file));
    const report = await validator.validateBytes(bytes, {
        uri: path.basename(file),
        maxIssues: 0,
        writeTimestamp: false,
        externalResourceFunction: async (uri) =>
            new Uint8Array(await readFile(path.join(base, decodeURIComponent(uri)))),
    });
    process.stdout.write(JSON.stringify(report) + '\n');
} catch (e) {
    console.error(`validate.mjs: ${file}: ${e && e.stack ? e.stack : e}`);
    process.exit(2);
}
