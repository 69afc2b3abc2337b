// Types of three.js: QTangentPlugin for three.js' GLTFLoader (qtangent-three/three).

import type { Object3D, WebGLProgramParametersWithUniforms, WebGLRenderer } from 'three';
import type { GLTFLoaderPlugin, GLTFParser } from 'three/addons/loaders/GLTFLoader.js';
import type { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';

/** The glTF extension the plugin reads: `QTANGENT_frames`. */
export declare const EXTENSION: 'QTANGENT_frames';

/** How a map's samples become a quaternion in the shader (`QT_MAP_DECODE`). */
export declare const MapDecode: Readonly<{ XY: 0; ZW: 1; UNORM: 2; PLAIN: 3; NORMAL_TWIST: 4; PAIR: 5; NORMAL: 6 }>;

/** The GLSL of the `_QTANGENT` decoders (the WGSL ones, operation for operation). */
export declare const GLSL_DECODE: string;
/** The GLSL of a map sample's decode (`QT_MAP_DECODE`) and the axial twist's halving. */
export declare const GLSL_MAP: string;

/** Options of {@link QTangentPlugin}. */
export interface QTangentPluginOptions {
	/**
	 * `'gpu'` (the default): `_QTANGENT` stays on the GPU as the format's bytes, decoded in the
	 * vertex shader. `'decode'`: decoded on load into NORMAL and TANGENT.
	 */
	mode?: 'gpu' | 'decode';
	/** Says which compressed formats the device samples: needed to read quaternion maps. */
	renderer?: WebGLRenderer;
	/** Accepted for earlier releases' callers, and unused: the plugin reads the maps' KTX2 images itself. */
	ktx2Loader?: KTX2Loader;
	/** Use the quaternion maps (default true; false: the file's own normal maps). */
	maps?: boolean;
	/** Upload BC5 maps compressed where the device samples RGTC (default true). */
	textureCompression?: boolean;
	/** Where warnings go (default: console.warn). */
	onWarning?: ( message: string ) => void;
}

/** What {@link patchShader} does to a shader. */
export interface ShaderPatch {
	/** The `_QTANGENT` format's code (its position in FORMATS): decode it in the vertex shader. */
	format?: number;
	/** Read a quaternion map in the fragment shader. */
	map?: 'tangent' | 'object';
	/** A two-layer map's twist texture. */
	twist?: unknown;
}

/** The loader plugin: register it with `loader.register( ( parser ) => new QTangentPlugin( parser, options ) )`. */
export declare class QTangentPlugin implements GLTFLoaderPlugin {
	constructor( parser: GLTFParser, options?: QTangentPluginOptions );
	readonly name: 'QTANGENT_frames';
	parser: GLTFParser;
	mode: 'gpu' | 'decode';
	loadTexture( textureIndex: number ): Promise<import( 'three' ).Texture> | null;
	afterRoot( result: import( 'three/addons/loaders/GLTFLoader.js' ).GLTF ): Promise<void>;
}

/**
 * Patches a material's shaders (`onBeforeCompile`'s `shader`) as the plugin's materials are
 * patched. Throws, naming the chunk and the three.js release, where a chunk does not hold what a
 * patch replaces.
 */
export declare function patchShader( shader: WebGLProgramParametersWithUniforms, q: ShaderPatch ): void;

/** BC5 blocks as (r, g) floats, row-major: SNORM in [−1, 1], or with `unorm` in [0, 1]. */
export declare function decodeBc5( bytes: Uint8Array, width: number, height: number, unorm?: boolean ): Float32Array;

/** The bytes of frames and frame textures on the GPU under `root`, each counted once. */
export declare function gpuBytes( root: Object3D ): { frames: number; vertices: number; framesPerVertex: number; textures: number };


