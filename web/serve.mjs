// A loopback HTTP server for the viewer and the browser tests: web/ at /, and a folder of glTF
// files at /files/. `node web/serve.mjs [--port N] [FOLDER]` (what `cargo xtask web` runs).

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = dirname( fileURLToPath( import.meta.url ) );
const TYPES = {
	'.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json',
	'.glb': 'model/gltf-binary', '.gltf': 'model/gltf+json', '.bin': 'application/octet-stream',
	'.png': 'image/png', '.jpg': 'image/jpeg', '.ktx2': 'image/ktx2', '.wasm': 'application/wasm', '.css': 'text/css',
};

/**
 * Serves web/ and `files` (at /files/) on 127.0.0.1:`port` (0: any free port); resolves to the
 * server. `three`: a package folder under node_modules served in place of `three` (the browser
 * test's `three-oldest`, the oldest three.js release the package supports).
 */
export function serve( files, port = 0, { three } = {} ) {

	const server = createServer( async ( req, res ) => {

		let path;
		try {

			path = decodeURIComponent( new URL( req.url, 'http://localhost' ).pathname );

		} catch {

			res.writeHead( 400, { 'content-type': 'text/plain' } ).end( 'bad path' );
			return;

		}

		if ( three && path.startsWith( '/node_modules/three/' ) ) path = `/node_modules/${ three }/${ path.slice( 20 ) }`;
		const [ base, rel ] = path.startsWith( '/files/' ) && files ? [ files, path.slice( 7 ) ] : [ WEB, path.slice( 1 ) || 'viewer.html' ];
		const file = normalize( join( base, rel ) );
		// Inside the folder (its own path and a separator: not a sibling whose name starts alike).
		if ( ! file.startsWith( resolve( base ) + sep ) ) {

			res.writeHead( 403 ).end();
			return;

		}

		try {

			if ( ! ( await stat( file ) ).isFile() ) throw new Error( 'not a file' );
			const body = await readFile( file );
			res.writeHead( 200, { 'content-type': TYPES[ extname( file ) ] ?? 'application/octet-stream', 'cache-control': 'no-store' } ).end( body );

		} catch {

			res.writeHead( 404, { 'content-type': 'text/plain' } ).end( `not found: ${ path }` );

		}

	} );
	return new Promise( ( ok, fail ) => server.once( 'error', fail ).listen( port, '127.0.0.1', () => ok( server ) ) );

}

const USAGE = `usage: node web/serve.mjs [FILE|FOLDER] [--port N]

Serves the qtangent viewer (web/) on 127.0.0.1 and a folder of glTF files at /files/: FILE opens
in the viewer (its folder is served), FOLDER is served. --port N: the port (default 8080; when
8080 is taken the next free port is used, an explicit --port is used or refused).`;

/** The command line: `{ target, port, explicit }`, or throws one line. */
function parseArgs( args ) {

	let port = 8080, explicit = false, target;
	for ( let i = 0; i < args.length; i ++ ) {

		const a = args[ i ];
		if ( a === '--port' ) {

			const v = args[ ++ i ];
			port = Number( v );
			if ( ! Number.isInteger( port ) || port < 1 || port > 65535 ) throw new Error( `--port ${ v ?? '' }: a port is a whole number from 1 to 65535` );
			explicit = true;

		} else if ( a.startsWith( '-' ) ) {

			throw new Error( `${ a }: unknown option (see --help)` );

		} else if ( target === undefined ) {

			target = resolve( a );

		} else {

			throw new Error( `${ a }: one FILE or FOLDER only (see --help)` );

		}

	}

	return { target, port, explicit };

}

/** `serve` on `port`, or, when it is taken and was not asked for, on the next free one. */
async function listen( files, port, explicit ) {

	for ( let p = port; ; p ++ ) {

		try {

			return await serve( files, p );

		} catch ( e ) {

			if ( e.code !== 'EADDRINUSE' ) throw e;
			if ( explicit ) throw new Error( `port ${ p } is in use: choose another with --port N` );
			if ( p >= port + 20 ) return serve( files, 0 );

		}

	}

}

if ( process.argv[ 1 ] && resolve( process.argv[ 1 ] ) === fileURLToPath( import.meta.url ) ) {

	const args = process.argv.slice( 2 );
	if ( args.includes( '--help' ) || args.includes( '-h' ) ) {

		console.log( USAGE );
		process.exit( 0 );

	}

	try {

		const { target, port, explicit } = parseArgs( args );
		let files, open = '';
		if ( target ) {

			const info = await stat( target ).catch( () => null );
			if ( ! info ) throw new Error( `${ target }: no such file or folder` );
			files = info.isFile() ? dirname( target ) : target;
			if ( info.isFile() ) open = `?file=/files/${ encodeURIComponent( target.slice( files.length + 1 ) ) }`;

		}

		const server = await listen( files, port, explicit );
		console.log( `qtangent viewer: http://127.0.0.1:${ server.address().port }/viewer.html${ open }${ files ? `  (files from ${ files } at /files/)` : '' }` );

	} catch ( e ) {

		console.error( `qtangent viewer: ${ e.message }` );
		process.exit( 2 );

	}

}
