// `npm test`: qtangent-three's node-side tests, no browser. The decoders against frames the Rust
// decoders decoded (fixtures/frames.json, which the Rust test `web::npm_test_passes` checks is
// what today's Rust table and decoders give), the format table against the Rust table's figures,
// the glTF-Transform extension written and read back, and every shader patch of the three.js
// plugin (patch.mjs). `npm run test:oldest` runs the same on the oldest three.js supported.
// Prints one line per part; exits 1 on the first failure.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { REVISION } from 'three';
import { Document, NodeIO } from '@gltf-transform/core';
import { FORMATS, decodeQTangent, formatByLayout, formatByName, toFrame } from '../src/index.js';
import { QTangentFrames, QTANGENT_FRAMES } from '../src/gltf-transform.js';
import { QTangentPlugin } from '../src/three.js';

const fixture = JSON.parse( await readFile( new URL( './fixtures/frames.json', import.meta.url ), 'utf8' ) );

// The format table: every Rust row, field by field, and the layout lookup.
assert.equal( FORMATS.length, fixture.formats.length, 'one row per Rust format' );
for ( const r of fixture.formats ) {

	const f = FORMATS[ r.code ];
	for ( const key of [ 'name', 'bytes', 'maxErrorDeg', 'componentType', 'itemSize', 'normalized', 'code' ] ) assert.equal( f[ key ], r[ key ], `${ r.name }.${ key }` );
	assert.equal( formatByName( r.name.toUpperCase() ), f, `formatByName ${ r.name }` );
	assert.equal( formatByLayout( r.componentType, r.itemSize, r.normalized ), f, `formatByLayout ${ r.name }` );

}

// The decoders, bit for bit: the quaternion, the reflection and the frame's three vectors.
const bits = ( v ) => {

	const b = new DataView( new ArrayBuffer( 4 ) );
	b.setFloat32( 0, v, true );
	return b.getUint32( 0, true );

};

let frames = 0;
for ( const c of fixture.frames ) {

	const bytes = Uint8Array.from( c.bytes.match( /../g ), ( h ) => parseInt( h, 16 ) );
	const q = decodeQTangent( c.format, bytes );
	const what = `${ c.format } ${ c.bytes }`;
	assert.deepEqual( [ q.x, q.y, q.z, q.w ].map( bits ), c.q, `${ what }: quaternion` );
	assert.equal( q.reflected, c.reflected, `${ what }: reflection` );
	const fr = toFrame( q );
	assert.deepEqual( fr.normal.map( bits ), c.n, `${ what }: normal` );
	assert.deepEqual( fr.tangent.map( bits ), c.t, `${ what }: tangent` );
	assert.deepEqual( fr.bitangent.map( bits ), c.b, `${ what }: bitangent` );
	frames ++;

}

assert.ok( frames >= 6 * 120, `at least 120 frames a format, not ${ frames }` );
assert.throws( () => decodeQTangent( 'f8x2', new Uint8Array( 4 ) ), /unknown _QTANGENT format 'f8x2'/ );
console.log( `decoders: ${ FORMATS.length } formats and ${ frames } frames bit for bit against Rust's` );

// glTF-Transform: a primitive's format and a material's tangent-space map written as
// docs/GLTF.md's "The QTANGENT_frames extension" says, and read back.
const KTX2 = Uint8Array.from( [ 0xab, 0x4b, 0x54, 0x58, 0x20, 0x32, 0x30, 0xbb, 0x0d, 0x0a, 0x1a, 0x0a ] );
const doc = new Document();
doc.createBuffer();
const ext = doc.createExtension( QTangentFrames );
const map = doc.createTexture( 'map' ).setImage( KTX2 ).setMimeType( 'image/ktx2' );
const material = doc.createMaterial( 'm' ).setExtension( QTANGENT_FRAMES, ext.createMaterial().setTangentMap( map ) );
const frameBytes = new Int16Array( [ 1, 2, 3, 4, 5, 6 ] );
const prim = doc.createPrimitive()
	.setAttribute( 'POSITION', doc.createAccessor().setType( 'VEC3' ).setArray( new Float32Array( 9 ) ) )
	.setAttribute( '_QTANGENT', doc.createAccessor().setType( 'VEC2' ).setArray( frameBytes ) )
	.setMaterial( material )
	.setExtension( QTANGENT_FRAMES, ext.createPrimitive().setFormat( 'smallest3x4' ) );
doc.createMesh( 'mesh' ).addPrimitive( prim );
const io = new NodeIO().registerExtensions( [ QTangentFrames ] );
const { json } = await io.writeJSON( doc );
assert.deepEqual( json.extensionsUsed, [ QTANGENT_FRAMES ] );
assert.deepEqual( json.meshes[ 0 ].primitives[ 0 ].extensions, { [ QTANGENT_FRAMES ]: { format: 'smallest3x4' } } );
const tangentMap = json.materials[ 0 ].extensions[ QTANGENT_FRAMES ].tangentMap;
const textureDef = json.textures[ tangentMap.index ];
assert.equal( json.images[ textureDef.extensions[ QTANGENT_FRAMES ].source ].mimeType, 'image/ktx2', 'the map texture\'s extension names the KTX2 image' );
assert.equal( json.images[ textureDef.source ].mimeType, 'image/png', 'the core source is the PNG fallback' );
const back = await io.readBinary( await io.writeBinary( doc ) );
const backPrim = back.getRoot().listMeshes()[ 0 ].listPrimitives()[ 0 ];
assert.equal( backPrim.getExtension( QTANGENT_FRAMES ).getFormat(), 'smallest3x4' );
assert.deepEqual( Array.from( backPrim.getAttribute( '_QTANGENT' ).getArray() ), Array.from( frameBytes ) );
const backMap = back.getRoot().listMaterials()[ 0 ].getExtension( QTANGENT_FRAMES ).getTangentMap();
assert.equal( backMap.getMimeType(), 'image/ktx2' );
assert.deepEqual( Array.from( backMap.getImage() ), Array.from( KTX2 ) );
assert.equal( back.getRoot().listTextures().length, 1, 'the PNG fallback is dropped on read, written again on write' );
console.log( 'glTF-Transform: QTANGENT_frames written as specified and read back' );

// The plugin's refusals, each one line: WebGPURenderer (node materials, which the GLSL patches
// cannot reach: qtangent-three/webgpu's plugin is for it) and an unknown mode.
assert.throws( () => new QTangentPlugin( {}, { renderer: { isWebGPURenderer: true } } ), /^Error: QTangentPlugin: WebGPURenderer draws node materials, which this plugin's GLSL patches cannot reach; import QTangentPlugin from qtangent-three\/webgpu$/ );
assert.throws( () => new QTangentPlugin( {}, { mode: 'shader' } ), /mode must be 'gpu' or 'decode', not 'shader'/ );
console.log( 'plugin: WebGPURenderer and an unknown mode refused in one line' );

// A map's KTX2 levels as stored: none taken as they are, Zstandard (scheme 2) undone through
// three.js' decoder, others refused naming the image. The Zstandard frame was written by the
// reference encoder, not by this package: `zstd -19` (v1.5.4) of bytes (7i + 3) mod 256,
// i = 0..1023.
{

	const plain = Uint8Array.from( { length: 1024 }, ( _, i ) => ( 7 * i + 3 ) % 256 );
	const zstdFrame = Buffer.from( 'KLUv/WQAA1UIAAQQAwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dzj6vH4/wYNFBsiKTA3PkVMU1phaG92fYSLkpmgp661vMPK0djf5u30+wIJEBceJSwzOkFIT1ZdZGtyeYCHjpWco6qxuL/GzdTb4unw9/4FDBMaISgvNj1ES1JZYGdudXyDipGYn6attLvCydDX3uXs8/oBCA8WHSQrMjlAR05VXGNqcXh/ho2Um6KpsLe+xczT2uHo7/b9BAsSGSAnLjU8Q0pRWF9mbXR7gomQl56lrLO6wcjP1t3k6/L5AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tng5+71/AEAAP0GqjUFM3pLEw==', 'base64' );
	const plugin = new QTangentPlugin( {}, {} );
	const stored = await plugin._levels( { supercompressionScheme: 0, levels: [ { levelData: plain } ] }, 0 );
	assert.equal( stored[ 0 ], plain );
	const level = { levelData: new Uint8Array( zstdFrame ), uncompressedByteLength: plain.length };
	const [ unpacked ] = await plugin._levels( { supercompressionScheme: 2, levels: [ level ] }, 3 );
	assert.deepEqual( Array.from( unpacked ), Array.from( plain ) );
	await assert.rejects( plugin._levels( { supercompressionScheme: 1, levels: [ level ] }, 3 ), /^Error: image 3 has KTX2 supercompression scheme 1; none or Zstandard is read$/ );
	console.log( 'KTX2 levels: Zstandard undone as the reference encoder wrote it, other schemes refused' );

}

// qtangent-three/webgpu (three.js r185 and newer: TSL's negateOnBackSide): WebGPURenderer taken,
// the frames decoded on load (its one mode; 'gpu' refused in one line), and the compressed formats
// asked of WebGPURenderer's backend: the WebGL2 backend's extensions, WebGPU's one BC feature.
if ( Number( REVISION ) >= 185 ) {

	const { QTangentPlugin: NodePlugin } = await import( '../src/three-webgpu.js' );
	const extensions = new Set( [ 'EXT_texture_compression_rgtc' ] );
	const webgl2 = { isWebGPURenderer: true, backend: { isWebGLBackend: true, extensions } };
	const plugin = new NodePlugin( {}, { renderer: webgl2 } );
	assert.equal( plugin.mode, 'decode' );
	assert.equal( plugin._hasExtension( 'EXT_texture_compression_rgtc' ), true );
	assert.equal( plugin._hasExtension( 'EXT_texture_compression_bptc' ), false );
	const webgpu = { isWebGPURenderer: true, backend: {}, hasFeature: ( f ) => f === 'texture-compression-bc' };
	assert.equal( new NodePlugin( {}, { renderer: webgpu } )._hasExtension( 'EXT_texture_compression_bptc' ), true );
	assert.equal( new NodePlugin( {}, { renderer: webgpu, textureCompression: false } )._hasExtension( 'EXT_texture_compression_rgtc' ), false );
	assert.throws( () => new NodePlugin( {}, { mode: 'gpu' } ), /^Error: qtangent-three\/webgpu: mode 'gpu': with node materials the frames are decoded on load \(mode 'decode'\); the vertex-shader decode \('gpu'\) is qtangent-three\/three's, for WebGLRenderer$/ );
	// useAnisotropy follows the strength alone once the plugin's anisotropyNode is set (three.js'
	// own getter says true for any node), on the material and on its clones.
	const { MeshPhysicalNodeMaterial } = await import( 'three/webgpu' );
	const { vec2 } = await import( 'three/tsl' );
	const plain = new MeshPhysicalNodeMaterial();
	plain.anisotropyNode = vec2( 1, 0 );
	assert.equal( plain.useAnisotropy, true, 'three.js lights any anisotropyNode anisotropically' );
	const material = NodePlugin._isotropicAtZero( new MeshPhysicalNodeMaterial() );
	material.anisotropyNode = vec2( 1, 0 );
	assert.ok( material instanceof MeshPhysicalNodeMaterial && material.isMeshPhysicalNodeMaterial );
	assert.equal( material.type, plain.type );
	assert.equal( material.constructor.name, 'MeshPhysicalNodeMaterial' );
	assert.equal( material.useAnisotropy, false );
	material.anisotropy = 0.5;
	assert.equal( material.useAnisotropy, true );
	material.anisotropy = 0;
	const copy = material.clone();
	assert.ok( copy.anisotropyNode !== null && copy instanceof MeshPhysicalNodeMaterial );
	assert.equal( copy.useAnisotropy, false, 'a clone keeps the isotropic lobe at strength 0' );
	copy.anisotropy = 1;
	assert.equal( copy.useAnisotropy, true );
	assert.equal( NodePlugin._isotropicAtZero( copy ), copy );
	assert.equal( Object.getPrototypeOf( Object.getPrototypeOf( copy ) ), MeshPhysicalNodeMaterial.prototype, 'subclassed once' );
	console.log( 'webgpu plugin: WebGPURenderer taken, frames decoded on load, compressed formats asked of the backend, isotropic at anisotropy 0 (clones too)' );

}

// Every shader patch on every lit three.js shader (prints its own line).
await import( './patch.mjs' );
console.log( `npm test: passed on three.js r${ REVISION }` );
