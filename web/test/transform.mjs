// glTF-Transform with QTANGENT_frames registered: the round trip the browser test renders, and
// (`node web/test/transform.mjs FILE.glb`) what each common function does to `_QTANGENT`, the
// table in docs/WEB.md.

import { Logger, NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS, KHRTextureBasisu } from '@gltf-transform/extensions';
import * as fn from '@gltf-transform/functions';
import { MeshoptDecoder, MeshoptEncoder, MeshoptSimplifier } from 'meshoptimizer';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QTangentFrames, QTANGENT_FRAMES } from '../src/gltf-transform.js';
import { formatByLayout } from '../src/formats.js';

export async function io() {

	await MeshoptDecoder.ready;
	await MeshoptEncoder.ready;
	return new NodeIO()
		.registerExtensions( [ ...ALL_EXTENSIONS, QTangentFrames ] )
		.registerDependencies( { 'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder } );

}

/** Reads `input` and writes it to `output`, changing nothing. */
export async function roundTrip( input, output ) {

	const i = await io();
	await i.write( output, await i.read( input ) );

}

/** What the file's primitives hold: `_QTANGENT` layouts, formats, element bytes, maps. */
function survey( doc ) {

	const s = { primitives: 0, qtangent: 0, formatKept: 0, layoutOk: 0, elements: new Set(), tangentMaps: 0, objectMaps: 0, textures: doc.getRoot().listTextures().length };
	for ( const mesh of doc.getRoot().listMeshes() ) for ( const prim of mesh.listPrimitives() ) {

		s.primitives ++;
		const a = prim.getAttribute( '_QTANGENT' );
		const ext = prim.getExtension( QTANGENT_FRAMES );
		if ( ext?.getFormat() ) s.formatKept ++;
		if ( ext?.getObjectMap() ) s.objectMaps ++;
		if ( prim.getMaterial()?.getExtension( QTANGENT_FRAMES )?.getTangentMap() ) s.tangentMaps ++;
		if ( ! a ) continue;
		s.qtangent ++;
		const layout = formatByLayout( a.getComponentType(), a.getElementSize(), a.getNormalized() );
		if ( layout && ( ! ext?.getFormat() || layout.name === ext.getFormat() ) ) s.layoutOk ++;
		const arr = a.getArray();
		const bytes = new Uint8Array( arr.buffer, arr.byteOffset, arr.byteLength );
		const per = arr.BYTES_PER_ELEMENT * a.getElementSize();
		for ( let k = 0; k < a.getCount(); k ++ ) s.elements.add( Buffer.from( bytes.subarray( k * per, ( k + 1 ) * per ) ).toString( 'hex' ) );

	}

	return s;

}

/** Each common function on `file`: does `_QTANGENT` survive, with its format, bytes and maps? */
export async function functionsTable( file ) {

	const i = await io();
	const runs = {
		'copy (read, write)': [],
		'copy twice': 'twice',
		// A file that also uses KHR_texture_basisu, which moves every KTX2 texture's source.
		'with KHR_texture_basisu': [ ( doc ) => void doc.createExtension( KHRTextureBasisu ) ],
		'dedup()': [ fn.dedup() ],
		'prune()': [ fn.prune() ],
		'weld()': [ fn.weld() ],
		'reorder()': [ fn.reorder( { encoder: MeshoptEncoder } ) ],
		'quantize()': [ fn.quantize() ],
		'meshopt()': [ fn.meshopt( { encoder: MeshoptEncoder } ) ],
		'flatten()': [ fn.flatten() ],
		'join()': [ fn.join() ],
		'unweld()': [ fn.unweld() ],
		'simplify({ ratio: 0.5 })': [ fn.weld(), fn.simplify( { simplifier: MeshoptSimplifier, ratio: 0.5 } ) ],
		'resample()': [ fn.resample() ],
	};
	await MeshoptSimplifier.ready;
	const before = survey( await i.read( file ) );
	const rows = [];
	for ( let [ name, transforms ] of Object.entries( runs ) ) {

		try {

			let doc = await i.read( file );
			if ( transforms === 'twice' ) {

				doc = await i.readBinary( await i.writeBinary( doc ) );
				transforms = [];

			}

			// What the function says (it says when it skips _QTANGENT), kept for the table.
			const said = new Set();
			const logger = new Logger( Logger.Verbosity.INFO );
			for ( const level of [ 'info', 'warn', 'error' ] ) logger[ level ] = ( m ) => said.add( String( m ) );
			doc.setLogger( logger );
			await doc.transform( ...transforms );
			const bytes = await i.writeBinary( doc );
			const after = survey( await i.readBinary( bytes ) );
			const invented = [ ...after.elements ].filter( ( e ) => ! before.elements.has( e ) ).length;
			rows.push( {
				name, ok: true, bytes: bytes.byteLength,
				qtangent: `${ after.qtangent }/${ after.primitives }`, format: `${ after.formatKept }/${ after.primitives }`,
				layout: `${ after.layoutOk }/${ after.qtangent }`, invented, maps: after.tangentMaps + after.objectMaps, textures: after.textures,
				said: [ ...said ].filter( ( m ) => /QTANGENT|qtangent/.test( m ) ),
			} );

		} catch ( e ) {

			rows.push( { name, ok: false, error: String( e.message ).split( '\n' )[ 0 ] } );

		}

	}

	return { before: { primitives: before.primitives, qtangent: before.qtangent, maps: before.tangentMaps + before.objectMaps, elements: before.elements.size, textures: before.textures }, rows };

}

if ( process.argv[ 1 ] && resolve( process.argv[ 1 ] ) === fileURLToPath( import.meta.url ) ) {

	console.log( JSON.stringify( await functionsTable( process.argv[ 2 ] ), null, 1 ) );

}
