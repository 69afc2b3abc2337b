// The browser tests, run by tests/it/web.rs: `node web/test/run.mjs FIXTURES OUT`.
//
// FIXTURES holds cases.json (what to render and compare, written by the Rust test), frames.json
// (the Rust decoders' table) and the files it names. Renders three.js' picture of each source file
// (three.js alone) and of its packed file (through QTangentPlugin) from one camera, writes every
// picture to OUT, and prints one JSON line of figures for the Rust test to judge.

import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { serve } from '../serve.mjs';
import { launch, open } from './browser.mjs';
import { functionsTable, roundTrip } from './transform.mjs';
import { BACKGROUND, normalAngles, psnr } from './psnr.mjs';

const [ fixtures, out ] = process.argv.slice( 2 );
if ( ! fixtures || ! out ) {

	console.error( 'usage: node web/test/run.mjs FIXTURES OUT' );
	process.exit( 2 );

}

await mkdir( out, { recursive: true } );
const cases = JSON.parse( await readFile( join( fixtures, 'cases.json' ), 'utf8' ) );
const frames = JSON.parse( await readFile( join( fixtures, 'frames.json' ), 'utf8' ) );

/** `promise`, or an error naming `what` after `seconds` (a page that never answers fails the test instead of hanging it). */
function within( promise, what, seconds = 300 ) {

	let timer;
	const timeout = new Promise( ( _, fail ) => {

		timer = setTimeout( () => fail( new Error( `${ what }: no answer in ${ seconds } s` ) ), seconds * 1000 );

	} );
	return Promise.race( [ promise, timeout ] ).finally( () => clearTimeout( timer ) );

}

async function savePng( name, dataUrl ) {

	await writeFile( join( out, `${ name }.png` ), Buffer.from( dataUrl.split( ',' )[ 1 ], 'base64' ) );

}

// QTANGENT_THREE: a package folder under node_modules served as `three` (`three-oldest`).
const server = await serve( fixtures, 0, { three: process.env.QTANGENT_THREE } );
const base = `http://127.0.0.1:${ server.address().port }`;
const browser = await launch();
const messages = [];
const result = { renders: [], timing: [], viewer: [], messages, skipped: [] };
// QTANGENT_SKIP_VARIANTS: variant names not drawn (comma-separated), listed in `skipped`.
const skip = ( process.env.QTANGENT_SKIP_VARIANTS ?? '' ).split( ',' ).filter( Boolean );
// QTANGENT_RENDERER=webgpu: the pictures drawn by WebGPURenderer (node materials) on its WebGL2
// backend through qtangent-three/webgpu. The checks that are not the renderer's (the BC5 decoder
// against WebGL's, glTF-Transform's functions, the frame times, the WebGL viewer) are the WebGL
// run's.
const nodes = process.env.QTANGENT_RENDERER === 'webgpu';
result.renderer = nodes ? 'WebGPURenderer' : 'WebGLRenderer';
try {

	const page = await open( browser, `${ base }/test/page.html${ nodes ? '?renderer=webgpu' : '' }`, messages );
	await page.waitForFunction( 'window.qtReady === true', { timeout: 60000 } );
	result.webgl = await page.evaluate( () => {

		const gl = document.getElementById( 'c' ).getContext( 'webgl2' );
		const info = gl.getExtension( 'WEBGL_debug_renderer_info' );
		return { renderer: info ? gl.getParameter( info.UNMASKED_RENDERER_WEBGL ) : gl.getParameter( gl.RENDERER ), extensions: gl.getSupportedExtensions(), three: window.qtThreeRevision, backend: window.qtBackend };

	} );
	result.decoders = await page.evaluate( ( t ) => window.qt.checkDecoders( t ), frames );
	if ( ! nodes ) {

		result.bc5 = await page.evaluate( () => window.qt.checkBc5( 256, 0x62633521 ) );
		result.bc5Unorm = await page.evaluate( () => window.qt.checkBc5( 256, 0x62633522, true ) );

	}

	// The glTF-Transform round trips, in node, before the pictures that read them.
	for ( const c of cases.renders ) for ( const v of c.variants ) {

		if ( v.roundTrip ) await roundTrip( join( fixtures, v.roundTrip ), join( fixtures, v.file ) );

	}

	// What each common glTF-Transform function does to _QTANGENT (docs/WEB.md's table).
	if ( cases.functions && ! nodes ) result.functions = await functionsTable( join( fixtures, cases.functions ) );

	const background = BACKGROUND;
	for ( const c of cases.renders ) {

		const source = await within( page.evaluate( ( url, o ) => window.qt.render( url, o ), `/files/${ c.source }`, { view: c.view, time: c.time, anisotropy: c.anisotropy, debugNormal: c.debugNormal } ), `${ c.name }: the source` );
		await savePng( `${ c.name }-source`, source.png );
		const row = { name: c.name, source: source.bytes, variants: [] };
		const drawn = {};
		for ( const v of c.variants ) {

			if ( skip.includes( v.name ) ) {

				if ( ! result.skipped.includes( v.name ) ) result.skipped.push( v.name );
				continue;

			}

			const r = await within( page.evaluate( ( url, o ) => window.qt.render( url, o ), `/files/${ v.file }`, { plugin: v.plugin, box: source.box, view: c.view, time: c.time, anisotropy: c.anisotropy, anisotropyMap: v.anisotropyMap, debugNormal: c.debugNormal } ), `${ c.name } ${ v.name }` );
			await savePng( `${ c.name }-${ v.name }`, r.png );
			drawn[ v.name ] = r.pixels;
			// `against`: another variant's picture, compared as well.
			const against = v.against ? psnr( drawn[ v.against ], r.pixels, background ) : undefined;
			// `debugNormal` cases: the angle between the normals as well.
			const normals = c.debugNormal ? normalAngles( source.pixels, r.pixels, background ) : undefined;
			row.variants.push( { name: v.name, psnr: psnr( source.pixels, r.pixels, background ), against, normals, bytes: r.bytes } );

		}

		result.renders.push( row );
		if ( c.timing && ! nodes ) {

			const list = [ { url: `/files/${ c.source }`, plugin: null }, ...c.variants.filter( ( v ) => c.timing.includes( v.name ) ).map( ( v ) => ( { url: `/files/${ v.file }`, plugin: v.plugin } ) ) ];
			const ms = await page.evaluate( ( l, rounds, n ) => window.qt.timing( l, rounds, n ),
				list.map( ( l ) => ( { ...l, box: source.box, view: c.view, time: c.time } ) ), 9, 3 );
			result.timing.push( { name: c.name, source: ms[ 0 ], variants: c.timing.map( ( n, i ) => ( {
				name: n, ms: ms[ i + 1 ], ratio: ms[ i + 1 ].min / ms[ 0 ].min, medianRatio: ms[ i + 1 ].median / ms[ 0 ].median,
			} ) ) } );

		}

	}

	await page.close();

	// The viewer: each mode of each file shows the model.
	for ( const v of nodes ? [] : cases.viewer ) {

		const vp = await open( browser, `${ base }/viewer.html?file=/files/${ v.file }&mode=${ v.mode }`, messages );
		await vp.waitForFunction( 'window.viewerReady === true || window.viewerError', { timeout: 300000 } );
		const state = await vp.evaluate( () => ( { error: window.viewerError ?? null, status: document.getElementById( 'status' ).textContent, covered: window.viewerCoverage() } ) );
		const shot = join( out, `viewer-${ v.name }.png` );
		await vp.screenshot( { path: shot } );
		result.viewer.push( { name: v.name, ...state } );
		await vp.close();

	}

} finally {

	await browser.close();
	server.close();

}

console.log( JSON.stringify( result ) );
