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

/** Serves web/ and `files` (at /files/) on 127.0.0.1:`port` (0: any free port); resolves to the server. */
export function serve( files, port = 0 ) {

	const server = createServer( async ( req, res ) => {

		let path;
		try {

			path = decodeURIComponent( new URL( req.url, 'http://localhost' ).pathname );

		} catch {

			res.writeHead( 400, { 'content-type': 'text/plain' } ).end( 'bad path' );
			return;

		}

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

if ( process.argv[ 1 ] && resolve( process.argv[ 1 ] ) === fileURLToPath( import.meta.url ) ) {

	const args = process.argv.slice( 2 );
	const at = args.indexOf( '--port' );
	const port = at >= 0 ? Number( args.splice( at, 2 )[ 1 ] ) : 8080;
	const target = args[ 0 ] ? resolve( args[ 0 ] ) : undefined;
	let files, open = '';
	if ( target ) {

		const isFile = ( await stat( target ) ).isFile();
		files = isFile ? dirname( target ) : target;
		if ( isFile ) open = `?file=/files/${ encodeURIComponent( target.slice( files.length + 1 ) ) }`;

	}

	const server = await serve( files, port );
	console.log( `qtangent viewer: http://127.0.0.1:${ server.address().port }/viewer.html${ open }${ files ? `  (files from ${ files } at /files/)` : '' }` );

}
