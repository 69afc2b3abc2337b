// The rendered columns of `cargo xtask gltfpack-table`'s corpus table:
// `node web/test/corpus.mjs FOLDER LIST.json OUT`.
//
// LIST.json: [ { name, source, time, variants: [ { name, file, plugin } ] } ], files relative to
// FOLDER (served at /files/). Draws each source with three.js alone and each variant (with
// QTangentPlugin where `plugin` is set, three.js alone where null) from the source's camera,
// posed at `time` where the file has animations, writes the pictures to OUT and prints one line
// a variant: `row<TAB>variant<TAB>dB` (PSNR over every pixel against the source's picture), or
// `row<TAB>variant<TAB>failed: why`.

import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { serve } from '../serve.mjs';
import { launch, open } from './browser.mjs';
import { psnr } from './psnr.mjs';

const [ folder, list, out ] = process.argv.slice( 2 );
if ( ! folder || ! list || ! out ) {

	console.error( 'usage: node web/test/corpus.mjs FOLDER LIST.json OUT' );
	process.exit( 2 );

}

await mkdir( out, { recursive: true } );
const rows = JSON.parse( await readFile( list, 'utf8' ) );
const view = { dir: [ 0.4, 0.35, 1.0 ], distance: 3.0, light: [ 1, 2, 3 ] };
const server = await serve( folder );
const base = `http://127.0.0.1:${ server.address().port }`;
const browser = await launch();
const line = ( ...cells ) => console.log( cells.join( '\t' ) );
const safe = ( s ) => s.replace( /[^A-Za-z0-9_-]+/g, '_' );
try {

	for ( const row of rows ) {

		// A fresh page a row: one file's failure leaves no state behind for the next.
		const messages = [];
		const page = await open( browser, `${ base }/test/page.html`, messages );
		await page.waitForFunction( 'window.qtReady === true', { timeout: 60000 } );
		const render = ( file, options ) => page.evaluate( ( url, o ) => window.qt.render( url, o ), `/files/${ file }`, options );
		let source;
		try {

			source = await render( row.source, { view, time: row.time } );

		} catch ( e ) {

			for ( const v of row.variants ) line( row.name, v.name, `failed: the source does not load (${ String( e.message ?? e ).split( '\n' )[ 0 ] })` );
			await page.close();
			continue;

		}

		await writeFile( join( out, `${ safe( row.name ) }-source.png` ), Buffer.from( source.png.split( ',' )[ 1 ], 'base64' ) );
		for ( const v of row.variants ) {

			try {

				const r = await render( v.file, { plugin: v.plugin, box: source.box, view, time: row.time } );
				await writeFile( join( out, `${ safe( row.name ) }-${ safe( v.name ) }.png` ), Buffer.from( r.png.split( ',' )[ 1 ], 'base64' ) );
				line( row.name, v.name, psnr( source.pixels, r.pixels ).all.toFixed( 1 ) );

			} catch ( e ) {

				line( row.name, v.name, `failed: ${ String( e.message ?? e ).split( '\n' )[ 0 ] }` );

			}

		}

		await page.close();

	}

} finally {

	await browser.close();
	server.close();

}
