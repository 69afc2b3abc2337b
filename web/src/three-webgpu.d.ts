// Types of qtangent-three/webgpu: QTangentPlugin for three.js' GLTFLoader with WebGPURenderer.

import type { WebGPURenderer } from 'three/webgpu';
import type { GLTFParser } from 'three/addons/loaders/GLTFLoader.js';
import type { QTangentPluginOptions as WebGLOptions, QTangentPlugin as WebGLPlugin } from './three.js';

/** Options of {@link QTangentPlugin} (WebGPURenderer). */
export interface QTangentPluginOptions extends Omit<WebGLOptions, 'mode' | 'renderer'> {
	/** `'decode'`, the only mode: the frames are decoded on load into NORMAL and TANGENT. */
	mode?: 'decode';
	/** The renderer, after `await renderer.init()`: says which compressed formats the device samples. */
	renderer?: WebGPURenderer;
}

/**
 * The loader plugin for WebGPURenderer (node materials): `loader.register( ( parser ) => new
 * QTangentPlugin( parser, { renderer } ) )`. Quaternion maps become the materials' `normalNode`
 * (and `anisotropyNode` with KHR_materials_anisotropy).
 */
export declare class QTangentPlugin extends WebGLPlugin {
	constructor( parser: GLTFParser, options?: QTangentPluginOptions );
}
