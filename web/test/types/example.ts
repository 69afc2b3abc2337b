// The package's declarations as a TypeScript user meets them: every export used once, each type
// where a user would name it. `tsc -p web/test/types/tsconfig.json` (run by the Rust test
// `web::the_package_installs_and_types_check`) must accept it; the lines marked @ts-expect-error
// must be refused, so a declaration that loosens to `any` fails the check too.

import { FORMATS, FLOAT, SHORT, decodeFrames, decodeQTangent, formatByLayout, formatByName, halfToFloat, toFrame } from 'qtangent-three';
import type { DecodedQTangent, Format, FormatName, Frame } from 'qtangent-three';
import { formatByName as byName } from 'qtangent-three/formats';
import { decodeQTangent as decodeOne } from 'qtangent-three/decode';
import { EXTENSION, GLSL_DECODE, GLSL_MAP, MapDecode, QTangentPlugin, decodeBc5, gpuBytes, patchShader } from 'qtangent-three/three';
import type { QTangentPluginOptions } from 'qtangent-three/three';
import { QTangentPlugin as NodePlugin } from 'qtangent-three/webgpu';
import type { QTangentPluginOptions as NodePluginOptions } from 'qtangent-three/webgpu';
import { WebGPURenderer } from 'three/webgpu';
import { QTANGENT_FRAMES, QTangentFrames, QTangentMaterial, QTangentPrimitive } from 'qtangent-three/gltf-transform';
import { Document, NodeIO } from '@gltf-transform/core';
import { Scene, WebGLRenderer } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const smallest: Format | undefined = formatByName( 'smallest3x4' );
const name: FormatName | undefined = smallest?.name;
const layout = formatByLayout( SHORT, 2, false );
const bytes: number = FORMATS[ 0 ].bytes + ( layout?.code ?? 0 ) + FLOAT;
const q: DecodedQTangent = decodeQTangent( 'f32x4', new Uint8Array( 16 ) );
const frame: Frame = toFrame( q );
const { normal, tangent } = decodeFrames( FORMATS[ 5 ], new Uint8Array( 4 ), 1, 4 );
const half: number = halfToFloat( 0x3c00 );
console.log( name, bytes, frame.normal[ 2 ], normal.length + tangent.length, half, byName( 'f16x4' ), decodeOne( 'f16x4', new Uint8Array( 8 ) ).reflected );

// @ts-expect-error: a format name is a string, a layout three numbers.
formatByLayout( 'SHORT', 2 );
// @ts-expect-error: the frame's vectors are [x, y, z].
const wrong: string = toFrame( q ).normal;

// three.js: the plugin in GLTFLoader.
const renderer = new WebGLRenderer();
const options: QTangentPluginOptions = { renderer, mode: 'gpu', maps: true, onWarning: ( m ) => console.log( m ) };
// @ts-expect-error: the modes are 'gpu' and 'decode'.
const badMode: QTangentPluginOptions = { mode: 'shader' };
const loader = new GLTFLoader();
loader.register( ( parser ) => new QTangentPlugin( parser, options ) );
const scene = new Scene();
const gpu = gpuBytes( scene );
console.log( EXTENSION, MapDecode.NORMAL, GLSL_DECODE.length + GLSL_MAP.length, gpu.framesPerVertex, decodeBc5( new Uint8Array( 16 ), 4, 4 ).length, typeof patchShader, wrong, badMode );

// three.js' WebGPURenderer: the node-material plugin, frames decoded on load.
const nodeRenderer = new WebGPURenderer();
const nodeOptions: NodePluginOptions = { renderer: nodeRenderer, mode: 'decode', maps: true };
// @ts-expect-error: with node materials the frames are decoded on load; 'gpu' is WebGL's.
const nodeGpu: NodePluginOptions = { mode: 'gpu' };
// @ts-expect-error: the node-material plugin takes WebGPURenderer, not WebGLRenderer.
const nodeWebGL: NodePluginOptions = { renderer };
new GLTFLoader().register( ( parser ) => new NodePlugin( parser, nodeOptions ) );
console.log( nodeGpu, nodeWebGL );

// glTF-Transform: the extension, its properties.
const io = new NodeIO().registerExtensions( [ QTangentFrames ] );
const doc = new Document();
const ext = doc.createExtension( QTangentFrames );
const prim: QTangentPrimitive = ext.createPrimitive().setFormat( 'smallest3x4' );
const material: QTangentMaterial = ext.createMaterial().setTangentMap( doc.createTexture( 'map' ) );
console.log( io, QTANGENT_FRAMES, prim.getFormat(), material.getTangentMap()?.getName() );
