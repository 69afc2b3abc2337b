// Reads a glTF file with glTF-Transform, decoding its KHR_draco_mesh_compression primitives with
// Google's own Draco decoder (draco3dgltf, the WebAssembly build of C++ Draco), and writes it
// back without Draco: the independent reader qtangent's Draco decoding is checked against.
//
//   node xtask/npm/undraco.mjs IN OUT [NPM_DIR]
//
// NPM_DIR (default: $QTANGENT_NPM, else target/npm beside this repository) is the folder
// `cargo xtask test` installed the pinned packages into. Exit status 2 when it cannot run.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [input, output, dirArg] = process.argv.slice(2);
if (!input || !output) {
    console.error('usage: node undraco.mjs IN OUT [NPM_DIR]');
    process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const npmDir = path.resolve(dirArg || process.env.QTANGENT_NPM || path.join(here, '../../target/npm'));
const require = createRequire(path.join(npmDir, 'package.json'));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);

try {
    const { NodeIO } = await load('@gltf-transform/core');
    const { ALL_EXTENSIONS } = await load('@gltf-transform/extensions');
    const draco3d = (await load('draco3dgltf')).default;
    const io = new NodeIO()
        .registerExtensions(ALL_EXTENSIONS)
        .registerDependencies({ 'draco3d.decoder': await draco3d.createDecoderModule() });
    const doc = await io.read(input);
    for (const ext of doc.getRoot().listExtensionsUsed()) {
        if (ext.extensionName === 'KHR_draco_mesh_compression') ext.dispose();
    }
    await io.write(output, doc);
} catch (e) {
    console.error(`undraco.mjs: ${e.stack || e}`);
    process.exit(2);
}
