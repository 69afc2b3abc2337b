// PSNR of pairs of pictures over their RGB, every pixel counted, with sharp (installed with the
// judges as glTF-Transform's image library):
//
//   node xtask/npm/psnr.mjs NPM_DIR A.png B.png [A.png B.png …]
//
// Prints one line a pair: the figure in dB (`inf` where identical), or `failed: why` (pictures of
// different sizes, a file that is not a picture). Used by `cargo xtask gltfpack-table` for the
// Bevy columns of its corpus table.
import { createRequire } from 'node:module';
import path from 'node:path';

const [npmDir, ...files] = process.argv.slice(2);
if (!npmDir || files.length === 0 || files.length % 2 !== 0) {
    console.error('usage: node psnr.mjs NPM_DIR A.png B.png [A.png B.png …]');
    process.exit(2);
}
const require = createRequire(path.join(path.resolve(npmDir), 'package.json'));
const sharp = require('sharp');

const rgb = async (file) => {
    const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data, size: `${info.width}x${info.height}` };
};

for (let i = 0; i < files.length; i += 2) {
    try {
        const [a, b] = [await rgb(files[i]), await rgb(files[i + 1])];
        if (a.size !== b.size) throw new Error(`sizes differ: ${a.size} and ${b.size}`);
        let se = 0;
        for (let k = 0; k < a.data.length; k++) {
            const d = a.data[k] - b.data[k];
            se += d * d;
        }
        const mse = se / a.data.length;
        console.log(mse === 0 ? 'inf' : (10 * Math.log10((255 * 255) / mse)).toFixed(1));
    } catch (e) {
        console.log(`failed: ${String(e.message ?? e).split('\n')[0]}`);
    }
}
