// QTangentPlugin: qtangent's files in three.js' GLTFLoader.
//
//   const loader = new GLTFLoader();
//   loader.register( ( parser ) => new QTangentPlugin( parser, { renderer, mode: 'gpu' } ) );
//
// - `_QTANGENT` (every format `pack` writes, named by the primitive's QTANGENT_frames.format or,
//   where a tool dropped that, by the accessor's layout) becomes three.js' NORMAL and TANGENT on
//   load (mode 'decode': every material and feature works), or stays on the GPU as the format's
//   bytes and is decoded in the vertex shader (mode 'gpu', the default: 4 bytes a vertex for
//   smallest3x4 where NORMAL + TANGENT take 28); three.js' skinning then turns the decoded frame.
//   Geometry with morph targets is decoded on load in either mode (a warning says so).
// - A material's QTANGENT_frames.tangentMap (a tangent-space quaternion map) replaces its normal
//   map in the fragment shader: the vertex frame [t, b, n] turned by the map's rotation, so the
//   normal *and* the tangent change per pixel; with KHR_materials_anisotropy and an anisotropy
//   texture, the map's tangent is the anisotropy direction. A primitive's QTANGENT_frames.objectMap
//   (an object-space quaternion map) gives the frame from the map alone.
// - The maps' KTX2 images (BC5, BC7, RGBA16F, RGBA32F, Zstandard-supercompressed or not) are read
//   here into textures, level by level, with three.js' own KTX2 parser and Zstandard decoder (not
//   KTX2Loader, whose raw BC formats arrived only in r180); two-layer BC5 maps (bc5x2) are split
//   into two textures; BC5 where the device has no RGTC (or with the option
//   textureCompression: false) is decoded here to half floats.

import {
	ClampToEdgeWrapping, DataTexture, DataUtils, HalfFloatType, LinearFilter, LinearMipmapLinearFilter,
	MirroredRepeatWrapping, NoColorSpace, ObjectSpaceNormalMap, RepeatWrapping, RGFormat,
	BufferAttribute, Float32BufferAttribute, TangentSpaceNormalMap, ShaderChunk, CompressedTexture,
	SIGNED_RED_GREEN_RGTC2_Format, RED_GREEN_RGTC2_Format, UnsignedByteType, REVISION,
	RGBAFormat, RGBA_BPTC_Format, FloatType,
} from 'three';
import { read as readKtx2 } from 'three/addons/libs/ktx-parse.module.js';
import { ZSTDDecoder } from 'three/addons/libs/zstddec.module.js';

import { FORMATS, formatByLayout, formatByName } from './formats.js';
import { decodeFrames } from './decode.js';

export const EXTENSION = 'QTANGENT_frames';

const WRAPPINGS = { 33071: ClampToEdgeWrapping, 33648: MirroredRepeatWrapping, 10497: RepeatWrapping };

const VK_BC5_UNORM = 141;
const VK_BC5_SNORM = 142;
const VK_BC7_UNORM = 145;
const VK_R16G16B16A16_SFLOAT = 97;
const VK_R32G32B32A32_SFLOAT = 109;
const KHR_SUPERCOMPRESSION_ZSTD = 2;

// One Zstandard decoder (WebAssembly) for every map of every load, made on first use.
let zstdDecoder;

/** How a map's samples become a quaternion in the shader (QT_MAP_DECODE). */
export const MapDecode = Object.freeze( { XY: 0, ZW: 1, UNORM: 2, PLAIN: 3, NORMAL_TWIST: 4, PAIR: 5, NORMAL: 6 } );

// The second layer (the twist's (z, w)) of each two-layer map, by the texture's source (clones of
// a texture, which KHR_texture_transform makes, share it; userData does not survive a clone).
const TWIST_LAYERS = new WeakMap();

const f32 = ( x ) => {

	// The f32 value written with enough digits for GLSL to read it back exactly.
	const v = Math.fround( x );
	return v.toPrecision( 9 ) + ( Number.isInteger( v ) ? '.0' : '' );

};

// The rotation matrix of a unit quaternion (x, y, z, w): "Quaternions: How", as quat_to_mat3 in
// qtangent's shaders/qtangent.wgsl. Both shader stages use it.
const GLSL_QUAT_TO_MAT3 = /* glsl */`
mat3 qtQuatToMat3( vec4 q ) {
	float x2 = q.x * q.x, y2 = q.y * q.y, z2 = q.z * q.z, w2 = q.w * q.w;
	float xy = 2.0 * q.x * q.y, xz = 2.0 * q.x * q.z, yz = 2.0 * q.y * q.z;
	float wx = 2.0 * q.w * q.x, wy = 2.0 * q.w * q.y, wz = 2.0 * q.w * q.z;
	return mat3( w2 + x2 - y2 - z2, xy + wz, xz - wy,
	             xy - wz, w2 - x2 + y2 - z2, yz + wx,
	             xz + wy, yz - wx, w2 - x2 - y2 + z2 );
}
`;

/** The GLSL of every format's decoder, `qtFrame()` picking one by QT_FORMAT (format codes). */
export const GLSL_DECODE = /* glsl */`
const float QT_S3_STEP_15 = ${ f32( Math.fround( Math.SQRT2 ) / 32767 ) };
const float QT_S3_STEP_812 = ${ f32( Math.fround( Math.SQRT2 ) / 811 ) };
const float QT_S3_HALF = ${ f32( Math.SQRT1_2 ) };
struct QtFrame { vec3 n; vec3 t; float h; };
${ GLSL_QUAT_TO_MAT3 }QtFrame qtFrameOf( vec4 q, bool reflected ) {
	mat3 m = qtQuatToMat3( q * inversesqrt( dot( q, q ) ) );
	return QtFrame( m[ 2 ], m[ 0 ], reflected ? - 1.0 : 1.0 );
}
vec4 qtS3Rebuild( uint index, float a, float b, float c ) {
	float l = sqrt( max( 0.0, 1.0 - ( a * a + b * b + c * c ) ) );
	if ( index == 0u ) return vec4( l, a, b, c );
	if ( index == 1u ) return vec4( a, l, b, c );
	if ( index == 2u ) return vec4( a, b, l, c );
	return vec4( a, b, c, l );
}
#if QT_FORMAT == 0 || QT_FORMAT == 2
in vec4 qtangent;
QtFrame qtFrame() { return qtFrameOf( qtangent, qtangent.w < 0.0 ); }
#elif QT_FORMAT == 1
in highp uvec2 qtangent;
QtFrame qtFrame() {
	vec4 q = vec4( unpackHalf2x16( qtangent.x ), unpackHalf2x16( qtangent.y ) );
	return qtFrameOf( q, q.w < 0.0 );
}
#elif QT_FORMAT == 3
in highp uvec2 qtangent;
QtFrame qtFrame() {
	vec2 xy = unpackHalf2x16( qtangent.x & ~0x4000u );
	float z = unpackHalf2x16( qtangent.y ).x;
	float w = sqrt( max( 0.0, 1.0 - ( xy.x * xy.x + xy.y * xy.y + z * z ) ) );
	return qtFrameOf( vec4( xy, z, w ), ( qtangent.x & 0x4000u ) != 0u );
}
#elif QT_FORMAT == 4
in highp uvec2 qtangent;
QtFrame qtFrame() {
	uint lo = qtangent.x, hi = qtangent.y;
	float a = float( lo & 0x7fffu ) * QT_S3_STEP_15 - QT_S3_HALF;
	float b = float( ( lo >> 15u ) & 0x7fffu ) * QT_S3_STEP_15 - QT_S3_HALF;
	float c = float( ( lo >> 30u ) | ( ( hi & 0x1fffu ) << 2u ) ) * QT_S3_STEP_15 - QT_S3_HALF;
	return qtFrameOf( qtS3Rebuild( ( hi >> 13u ) & 3u, a, b, c ), ( ( hi >> 15u ) & 1u ) == 1u );
}
#elif QT_FORMAT == 5
in highp uint qtangent;
QtFrame qtFrame() {
	uint p = qtangent & 0x1fffffffu;
	float a = float( p % 812u ) * QT_S3_STEP_812 - QT_S3_HALF;
	float b = float( ( p / 812u ) % 812u ) * QT_S3_STEP_812 - QT_S3_HALF;
	float c = float( p / ( 812u * 812u ) ) * QT_S3_STEP_812 - QT_S3_HALF;
	return qtFrameOf( qtS3Rebuild( ( qtangent >> 29u ) & 3u, a, b, c ), ( qtangent >> 31u ) == 1u );
}
#endif
`;

/** The GLSL of a map sample's decode (QT_MAP_DECODE) and the axial twist's halving. */
export const GLSL_MAP = /* glsl */`
${ GLSL_QUAT_TO_MAT3 }vec4 qtQuatMul( vec4 a, vec4 b ) {
	return vec4( a.w * b.xyz + b.w * a.xyz + cross( a.xyz, b.xyz ), a.w * b.w - dot( a.xyz, b.xyz ) );
}
#ifdef QT_MAP_TWO_LAYERS
uniform sampler2D qtTwistMap;
#endif
// s: the map's sample; s2: its second layer's (two-layer maps: the twist's (z, w)).
vec4 qtMapDecode( vec4 s, vec4 s2 ) {
#if QT_MAP_DECODE == 0
	return vec4( s.xy, 0.0, sqrt( max( 0.0, 1.0 - dot( s.xy, s.xy ) ) ) );
#elif QT_MAP_DECODE == 1
	return vec4( 0.0, 0.0, s.xy );
#elif QT_MAP_DECODE == 2
	return s * 2.0 - 1.0;
#elif QT_MAP_DECODE == 4
	// The normal (x, y, z ≥ 0 rebuilt): the arc from +Z to it, then the twist (join_normal_twist).
	float nz = sqrt( max( 0.0, 1.0 - dot( s.xy, s.xy ) ) );
	return qtQuatMul( normalize( vec4( - s.y, s.x, 0.0, 1.0 + nz ) ), vec4( 0.0, 0.0, s2.xy ) );
#elif QT_MAP_DECODE == 6
	// A BC5 UNORM normal map: n = (2s − 1, z ≥ 0 rebuilt), the arc from +Z to it.
	vec2 n = s.xy * 2.0 - 1.0;
	float nz = sqrt( max( 0.0, 1.0 - dot( n, n ) ) );
	return normalize( vec4( - n.y, n.x, 0.0, 1.0 + nz ) );
#elif QT_MAP_DECODE == 5
	// A swing (x, y, 0, w rebuilt) then the twist (join_swing_twist).
	return qtQuatMul( vec4( s.xy, 0.0, sqrt( max( 0.0, 1.0 - dot( s.xy, s.xy ) ) ) ), vec4( 0.0, 0.0, s2.xy ) );
#else
	return s;
#endif
}
// An axial map stores its twist about z doubled (an anisotropy direction d ≡ −d): swing ⊗
// rot_z(2φ) → swing ⊗ rot_z(φ), as qmap_halve_twist in qtangent's shaders/qmap.wgsl.
vec4 qtHalveTwist( vec4 r ) {
	float tl2 = r.z * r.z + r.w * r.w;
	if ( tl2 < 1e-24 ) return r;
	vec4 t = vec4( 0.0, 0.0, r.z, r.w ) * inversesqrt( tl2 );
	vec4 swing = qtQuatMul( r, vec4( 0.0, 0.0, - t.z, t.w ) );
	vec4 h = t + vec4( 0.0, 0.0, 0.0, 1.0 );
	float hl2 = dot( h, h );
	vec4 half_ = hl2 >= 1e-24 ? h * inversesqrt( hl2 ) : vec4( 0.0, 0.0, 0.0, 1.0 );
	return qtQuatMul( swing, half_ );
}
// Seam-robust sampling, as qmap_robust in qtangent's shaders/qmap.wgsl: where the filtered
// quaternion is short (|q|² < 0.81: the texels under the filter disagree, q against −q), the four
// texels of the nearest level are fetched, aligned to the one with the largest weight and blended
// by hand. BC5 maps of a tilt rebuild w ≥ 0 and have no hemisphere to conflict over.
#ifdef QT_MAP_ROBUST
vec4 qtMapTexel( ivec2 p, ivec2 dims, int level ) {
#ifdef QT_MAP_REPEAT
	ivec2 c = ( ( p % dims ) + dims ) % dims;
#else
	ivec2 c = clamp( p, ivec2( 0 ), dims - 1 );
#endif
#ifdef QT_MAP_TWO_LAYERS
	vec4 s2 = texelFetch( qtTwistMap, c, level );
#else
	vec4 s2 = vec4( 0.0 );
#endif
	return qtMapDecode( texelFetch( normalMap, c, level ), s2 );
}
vec4 qtMapRobust( vec2 uv, vec4 q, float lod ) {
	if ( dot( q, q ) >= 0.81 ) return q;
	int level = clamp( int( round( lod ) ), 0, QT_MAP_LEVELS - 1 );
	ivec2 dims = textureSize( normalMap, level );
	vec2 st = uv * vec2( dims ) - 0.5;
	ivec2 i0 = ivec2( floor( st ) );
	vec2 f = st - floor( st );
	vec4 a = qtMapTexel( i0, dims, level ), b = qtMapTexel( i0 + ivec2( 1, 0 ), dims, level );
	vec4 c = qtMapTexel( i0 + ivec2( 0, 1 ), dims, level ), d = qtMapTexel( i0 + ivec2( 1, 1 ), dims, level );
	vec4 w = vec4( ( 1.0 - f.x ) * ( 1.0 - f.y ), f.x * ( 1.0 - f.y ), ( 1.0 - f.x ) * f.y, f.x * f.y );
	vec4 strongest = a;
	float best = w.x;
	if ( w.y > best ) { best = w.y; strongest = b; }
	if ( w.z > best ) { best = w.z; strongest = c; }
	if ( w.w > best ) { best = w.w; strongest = d; }
	return a * w.x * ( dot( a, strongest ) >= 0.0 ? 1.0 : - 1.0 ) + b * w.y * ( dot( b, strongest ) >= 0.0 ? 1.0 : - 1.0 )
		+ c * w.z * ( dot( c, strongest ) >= 0.0 ? 1.0 : - 1.0 ) + d * w.w * ( dot( d, strongest ) >= 0.0 ? 1.0 : - 1.0 );
}
#endif
// The map's rotation at uv, its level of detail moved by bias levels.
mat3 qtMapRotation( vec2 uv, float bias ) {
#ifdef QT_MAP_TWO_LAYERS
	vec4 s2 = texture( qtTwistMap, uv, bias );
#else
	vec4 s2 = vec4( 0.0 );
#endif
	vec4 r = qtMapDecode( texture( normalMap, uv, bias ), s2 );
#ifdef QT_MAP_ROBUST
	// The level hardware sampling picks (isotropic), from derivatives taken in uniform control flow.
	vec2 size0 = vec2( textureSize( normalMap, 0 ) );
	vec2 dx = dFdx( uv ) * size0, dy = dFdy( uv ) * size0;
	float lod = max( 0.5 * log2( max( max( dot( dx, dx ), dot( dy, dy ) ), 1e-12 ) ) + bias, 0.0 );
	r = qtMapRobust( uv, r, lod );
#endif
#ifdef QT_MAP_AXIAL
	r = qtHalveTwist( r );
#endif
	return qtQuatToMat3( r * inversesqrt( max( dot( r, r ), 1e-30 ) ) );
}
`;

// The tangent-space map in place of three.js' normal map: [t, b, n] (three.js' tbn, b already
// h·(n × t), faces already flipped) times the map's rotation is the frame at the pixel
// (qtangent's docs/MAPS.md: in [t, b, n] the rotation needs no handedness of its own).
const FRAGMENT_TANGENT_MAP = /* glsl */`
	tbn = tbn * qtMapRotation( vNormalMapUv, 0.0 );
	normal = normalize( tbn[ 2 ] );
`;

// The object-space map: the frame from the map alone, sampled one level finer (its levels below
// 0 were baked for that), moved to view space as three.js moves an object-space normal.
const FRAGMENT_OBJECT_MAP = /* glsl */`
	mat3 qtM = qtMapRotation( vNormalMapUv, - 1.0 );
	normal = qtM[ 2 ];
	#ifdef FLIP_SIDED
		normal = - normal;
	#endif
	#ifdef DOUBLE_SIDED
		normal = normal * faceDirection;
	#endif
	normal = normalize( normalMatrix * normal );
`;

/**
 * `source` with its first `search` replaced by `replacement`, literally. A three.js release that
 * rewords a chunk must not silently turn a path off: where `source` does not hold `search`, an
 * error naming the chunk and the three.js release.
 */
function patch( source, search, replacement, chunk ) {

	if ( ! source.includes( search ) ) {

		throw new Error( `qtangent-three: three.js r${ REVISION }'s ${ chunk } has no "${ search }": this three.js release is not supported` );

	}

	return source.replace( search, () => replacement );

}

/** three.js' shaders (`ShaderLib` names) that shade with a normal: normal maps, lights. */
const NORMAL_SHADERS = new Set( [ 'lambert', 'phong', 'standard', 'toon', 'matcap', 'normal', 'physical' ] );

/** Those of them with three.js' physical lighting (anisotropy). */
const PHYSICAL_SHADERS = new Set( [ 'standard', 'physical' ] );

/**
 * Patches a three.js material's shaders (`onBeforeCompile`'s `shader`) as the plugin's
 * materials are patched: `q.format` decodes the `_QTANGENT` frame in the vertex shader, `q.map`
 * ('tangent' or 'object') reads a quaternion map in the fragment shader (`q.twist`: its twist
 * texture). Shaders without a shading normal (`shader.shaderID` not one of three.js' lit or
 * normal-mapped shaders: an unlit material's `basic`) take the frame's normal alone and no map,
 * as they have nowhere to use them. Every patch is checked: a chunk that does not hold what it
 * replaces throws, naming the chunk and the three.js release. Exported for the package's tests
 * and for materials of one's own.
 */
export function patchShader( shader, q ) {

	const normals = NORMAL_SHADERS.has( shader.shaderID );

	// three.js shades a mesh without a NORMAL attribute flat; the frames are the normals.
	shader.vertexShader = `#undef FLAT_SHADED\n${ shader.vertexShader }`;
	shader.fragmentShader = `#undef FLAT_SHADED\n${ shader.fragmentShader }`;
	if ( q.format !== undefined ) {

		const vertex = 'the vertex shader';
		let v = patch( shader.vertexShader, '#include <common>', `#include <common>\n${ GLSL_DECODE }`, vertex );
		v = patch( v, '#include <beginnormal_vertex>', `QtFrame qtf = qtFrame();
vec3 objectNormal = qtf.n;
#ifdef USE_TANGENT
	vec3 objectTangent = qtf.t;
#endif`, vertex );
		if ( normals ) {

			const normalVertex = patch( ShaderChunk.normal_vertex, 'tangent.w', 'qtf.h', 'ShaderChunk.normal_vertex' );
			v = patch( v, '#include <normal_vertex>', normalVertex, vertex );

		}

		shader.vertexShader = v;

	}

	if ( q.map && normals ) {

		if ( q.twist ) shader.uniforms.qtTwistMap = { value: q.twist };
		const fragment = 'the fragment shader';
		let f = patch( shader.fragmentShader, '#include <normalmap_pars_fragment>', `#include <normalmap_pars_fragment>\n${ GLSL_MAP }`, fragment );
		f = patch( f, '#include <normal_fragment_maps>', q.map === 'tangent' ? FRAGMENT_TANGENT_MAP : FRAGMENT_OBJECT_MAP, fragment );
		if ( q.map === 'tangent' && PHYSICAL_SHADERS.has( shader.shaderID ) ) {

			// With an anisotropy texture (physical shading only), its strength (B) along the map's tangent: the map was
			// baked with the texture's direction (qtangent's lit.wgsl does the same).
			const lights = patch( ShaderChunk.lights_physical_fragment,
				'anisotropyMat * normalize( 2.0 * anisotropyPolar.rg - vec2( 1.0 ) ) * anisotropyPolar.b',
				'vec2( length( anisotropyVector ) * anisotropyPolar.b, 0.0 )', 'ShaderChunk.lights_physical_fragment' );
			f = patch( f, '#include <lights_physical_fragment>', lights, fragment );

		}

		shader.fragmentShader = f;

	}

}

/** A two-channel half-float texture of (r, g) float levels (BC5 where the device has no RGTC). */
function halfTexture( levels, width, height ) {

	const mipmaps = levels.map( ( data, k ) => {

		const h = new Uint16Array( data.length );
		for ( let i = 0; i < data.length; i ++ ) h[ i ] = DataUtils.toHalfFloat( data[ i ] );
		return { data: h, width: Math.max( 1, width >> k ), height: Math.max( 1, height >> k ) };

	} );
	const t = new DataTexture( mipmaps[ 0 ].data, width, height, RGFormat, HalfFloatType );
	t.mipmaps = mipmaps;
	return t;

}

/** BC5 blocks as (r, g) floats, row-major, per channel BC4's palette in the Khronos Data Format
 * Specification: SNORM in [−1, 1] (−128 reads as −127), or with `unorm` BC5 UNORM in [0, 1]
 * (a tangent map's normal layout, n·½ + ½). */
export function decodeBc5( bytes, width, height, unorm = false ) {

	const out = new Float32Array( width * height * 2 );
	const bw = Math.ceil( width / 4 ), bh = Math.ceil( height / 4 );
	// SNORM: endpoints max(e, −127)/127, the 6-value mode's extremes −1 and 1; UNORM: e/255, 0 and 1.
	const [ lo, hi, scale ] = unorm ? [ 0, 255, 255 ] : [ - 127, 127, 127 ];
	const byte = unorm ? ( v ) => v : ( v ) => Math.max( ( v << 24 ) >> 24, - 127 );
	for ( let by = 0; by < bh; by ++ ) for ( let bx = 0; bx < bw; bx ++ ) {

		for ( let c = 0; c < 2; c ++ ) {

			const b = 16 * ( by * bw + bx ) + 8 * c;
			const e0 = byte( bytes[ b ] ), e1 = byte( bytes[ b + 1 ] );
			const p = [ e0, e1 ];
			if ( e0 > e1 ) for ( let i = 1; i < 7; i ++ ) p.push( ( ( 7 - i ) * e0 + i * e1 ) / 7 );
			else {

				for ( let i = 1; i < 5; i ++ ) p.push( ( ( 5 - i ) * e0 + i * e1 ) / 5 );
				p.push( lo, hi );

			}

			let bits = 0;
			for ( let i = 0; i < 6; i ++ ) bits += bytes[ b + 2 + i ] * 2 ** ( 8 * i );
			for ( let i = 0; i < 16; i ++ ) {

				const x = 4 * bx + ( i & 3 ), y = 4 * by + ( i >> 2 );
				const idx = Math.floor( bits / 2 ** ( 3 * i ) ) % 8;
				if ( x < width && y < height ) out[ 2 * ( y * width + x ) + c ] = p[ idx ] / scale;

			}

		}

	}

	return out;

}

export class QTangentPlugin {

	/**
	 * @param {GLTFParser} parser
	 * @param {object} [options]
	 * @param {'gpu'|'decode'} [options.mode='gpu'] Keep `_QTANGENT` on the GPU and decode it in the
	 *   vertex shader, or decode it on load into NORMAL and TANGENT.
	 * @param {WebGLRenderer} [options.renderer] Tells which compressed formats the device samples:
	 *   needed to read quaternion maps.
	 * @param {KTX2Loader} [options.ktx2Loader] Accepted for earlier releases' callers, and unused:
	 *   the plugin reads the maps' KTX2 images itself.
	 * @param {boolean} [options.maps=true] Use the quaternion maps (false: the file's own normal maps).
	 * @param {boolean} [options.textureCompression=true] Upload BC5 maps compressed where the device
	 *   samples RGTC; false decodes them here to half floats (as on a device without RGTC).
	 * @param {(message: string) => void} [options.onWarning] Where warnings go (console.warn).
	 */
	constructor( parser, options = {} ) {

		this.parser = parser;
		this.name = EXTENSION;
		this.mode = options.mode ?? 'gpu';
		if ( this.mode !== 'gpu' && this.mode !== 'decode' ) throw new Error( `QTangentPlugin: mode must be 'gpu' or 'decode', not '${ this.mode }'` );
		// WebGPURenderer runs node materials (TSL), which the GLSL patches cannot reach: refused
		// here, in one line, rather than drawing without the frames' maps (qtangent-three/webgpu
		// is the plugin for it).
		if ( options.renderer?.isWebGPURenderer && ! new.target.nodeMaterials ) throw new Error( 'QTangentPlugin: WebGPURenderer draws node materials, which this plugin\'s GLSL patches cannot reach; import QTangentPlugin from qtangent-three/webgpu' );
		this.renderer = options.renderer;
		this.ktx2Loader = options.ktx2Loader;
		this.useMaps = options.maps ?? true;
		this.compressed = options.textureCompression ?? true;
		this.warn = options.onWarning ?? ( ( m ) => console.warn( m ) );
		this.materials = new Map();
		this.geometries = new Map();

	}

	/** Whether the device samples a compressed format (the renderer says; see the constructor). */
	_hasExtension( name ) {

		if ( name === 'EXT_texture_compression_rgtc' && ! this.compressed ) return false;
		if ( ! this.renderer ) throw new Error( 'QTangentPlugin: pass { renderer } to read quaternion maps (it says which compressed formats the device samples)' );
		return this.renderer.extensions.has( name );

	}

	/** The levels of a KTX2 container as stored (Zstandard supercompression undone), level 0 first. */
	async _levels( container, imageIndex ) {

		const scheme = container.supercompressionScheme;
		if ( scheme === 0 ) return container.levels.map( ( l ) => l.levelData );
		if ( scheme !== KHR_SUPERCOMPRESSION_ZSTD ) throw new Error( `image ${ imageIndex } has KTX2 supercompression scheme ${ scheme }; none or Zstandard is read` );
		if ( ! zstdDecoder ) {

			const decoder = new ZSTDDecoder();
			zstdDecoder = decoder.init().then( () => decoder );

		}

		const zstd = await zstdDecoder;
		return container.levels.map( ( l ) => zstd.decode( l.levelData, l.uncompressedByteLength ) );

	}

	/** A texture of the levels (each a Uint8Array) of a BC7 or RGBA16F/32F map. */
	_rawTexture( levels, w, h, vkFormat ) {

		const size = ( k ) => [ Math.max( 1, w >> k ), Math.max( 1, h >> k ) ];
		// Each level copied, so that its typed view starts aligned.
		const view = ( data ) => {

			const bytes = data.slice();
			if ( vkFormat === VK_R16G16B16A16_SFLOAT ) return new Uint16Array( bytes.buffer );
			if ( vkFormat === VK_R32G32B32A32_SFLOAT ) return new Float32Array( bytes.buffer );
			return bytes;

		};
		const mipmaps = levels.map( ( data, k ) => ( { data: view( data ), width: size( k )[ 0 ], height: size( k )[ 1 ] } ) );
		if ( vkFormat === VK_BC7_UNORM ) return new CompressedTexture( mipmaps, w, h, RGBA_BPTC_Format, UnsignedByteType );
		const t = new DataTexture( mipmaps[ 0 ].data, w, h, RGBAFormat, vkFormat === VK_R16G16B16A16_SFLOAT ? HalfFloatType : FloatType );
		t.mipmaps = mipmaps;
		return t;

	}

	/** A 2D texture of BC5 levels (SNORM, or `unorm`): compressed where the device samples RGTC, else half floats. */
	_bc5Texture( levels, w, h, unorm = false ) {

		const size = ( k ) => [ Math.max( 1, w >> k ), Math.max( 1, h >> k ) ];
		let t;
		if ( this._hasExtension( 'EXT_texture_compression_rgtc' ) ) {

			const mipmaps = levels.map( ( data, k ) => ( { data, width: size( k )[ 0 ], height: size( k )[ 1 ] } ) );
			t = new CompressedTexture( mipmaps, w, h, unorm ? RED_GREEN_RGTC2_Format : SIGNED_RED_GREEN_RGTC2_Format, UnsignedByteType );

		} else {

			t = halfTexture( levels.map( ( l, k ) => decodeBc5( l, ...size( k ), unorm ) ), w, h );

		}

		t.minFilter = levels.length > 1 ? LinearMipmapLinearFilter : LinearFilter;
		t.magFilter = LinearFilter;
		t.generateMipmaps = false;
		t.flipY = false;
		t.colorSpace = NoColorSpace;
		t.needsUpdate = true;
		return t;

	}

	/** A two-layer map's second texture (the twist's (z, w)), or undefined. */
	_twistOf( texture ) {

		return TWIST_LAYERS.get( texture.source );

	}

	/** GLTFLoader hook: a texture whose QTANGENT_frames names a KTX2 map image. */
	loadTexture( textureIndex ) {

		const json = this.parser.json;
		const def = json.textures[ textureIndex ];
		const ext = def.extensions?.[ EXTENSION ];
		if ( ! ext || ! this.useMaps ) return null;
		const load = Number.isInteger( ext.source ) ? this._loadMap( ext.source, def ) : Promise.reject( new Error( 'its QTANGENT_frames names no image (source)' ) );
		return load.then( ( texture ) => {

			this.parser.associations.set( texture, { textures: textureIndex } );
			return texture;

		}, ( e ) => {

			throw new Error( `texture ${ textureIndex }${ def.name ? ` '${ def.name }'` : '' }: ${ e.message }` );

		} );

	}

	async _imageBytes( imageIndex ) {

		const image = this.parser.json.images?.[ imageIndex ];
		if ( ! image ) throw new Error( `image ${ imageIndex } does not exist` );
		if ( image.bufferView !== undefined ) return this.parser.getDependency( 'bufferView', image.bufferView );
		const url = new URL( image.uri, new URL( this.parser.options.path || '', globalThis.location?.href ) ).href;
		const response = await fetch( url );
		if ( ! response.ok ) throw new Error( `image ${ imageIndex } (${ image.uri }): HTTP ${ response.status }` );
		return response.arrayBuffer();

	}

	async _loadMap( imageIndex, textureDef ) {

		const buffer = await this._imageBytes( imageIndex );
		let container;
		try {

			container = readKtx2( new Uint8Array( buffer ) );

		} catch ( e ) {

			throw new Error( `image ${ imageIndex } is not a KTX2 file (${ e.message })` );

		}

		const text = ( key ) => {

			const v = container.keyValue[ key ];
			return v === undefined ? undefined : new TextDecoder().decode( v ).replace( /\0$/, '' );

		};

		const meta = {
			kind: text( 'qtangent.kind' ) ?? 'tangent',
			axial: text( 'qtangent.twist' ) === 'axial',
			decode: MapDecode.PLAIN,
		};
		const { vkFormat } = container;
		const w = container.pixelWidth, h = container.pixelHeight;
		let texture;
		if ( container.layerCount > 1 ) {

			// bc5x2: two BC5 SNORM layers, each level holding layer 0 then layer 1 (KTX 2.0 §4.1);
			// two 2D textures, as the normal-map slot takes no array.
			if ( container.layerCount !== 2 || vkFormat !== VK_BC5_SNORM ) {

				throw new Error( `image ${ imageIndex } is a ${ container.layerCount }-layer map of vkFormat ${ vkFormat }; two BC5 SNORM layers are read` );

			}

			meta.decode = meta.kind === 'object' ? MapDecode.PAIR : MapDecode.NORMAL_TWIST;
			const levels = await this._levels( container, imageIndex );
			const [ first, second ] = [ 0, 1 ].map( ( layer ) => this._bc5Texture( levels.map( ( l ) => {

				const half = l.byteLength / 2;
				return l.subarray( layer * half, ( layer + 1 ) * half );

			} ), w, h ) );
			texture = first;
			TWIST_LAYERS.set( texture.source, second );

		} else if ( vkFormat === VK_BC5_UNORM ) {

			// The normal's (x, y) as n·½ + ½ (a BC5 normal map on its 8-bit source's lattice).
			if ( text( 'qtangent.channels' ) !== 'normal' ) throw new Error( `image ${ imageIndex } is BC5 UNORM without qtangent.channels 'normal'` );
			meta.decode = MapDecode.NORMAL;
			texture = this._bc5Texture( await this._levels( container, imageIndex ), w, h, true );

		} else if ( vkFormat === VK_BC5_SNORM ) {

			// qtangent.channels: 'zw' a twist alone, absent the swing's (x, y) (files before the
			// normal layout, and tilts past the horizon); the normal layout is BC5 UNORM.
			const channels = text( 'qtangent.channels' );
			if ( channels === 'normal' ) throw new Error( `image ${ imageIndex }: qtangent.channels 'normal' in BC5 SNORM, a map from an earlier qtangent; bake it again` );
			meta.decode = channels === 'zw' ? MapDecode.ZW : MapDecode.XY;
			texture = this._bc5Texture( await this._levels( container, imageIndex ), w, h );

		} else if ( vkFormat === VK_BC7_UNORM ) {

			meta.decode = MapDecode.UNORM;
			if ( ! this._hasExtension( 'EXT_texture_compression_bptc' ) ) throw new Error( `image ${ imageIndex } is BC7 and this device has no EXT_texture_compression_bptc` );
			texture = this._rawTexture( await this._levels( container, imageIndex ), w, h, vkFormat );

		} else if ( vkFormat === VK_R16G16B16A16_SFLOAT || vkFormat === VK_R32G32B32A32_SFLOAT ) {

			texture = this._rawTexture( await this._levels( container, imageIndex ), w, h, vkFormat );

		} else {

			throw new Error( `image ${ imageIndex } has vkFormat ${ vkFormat }, not a quaternion map layout` );

		}

		const sampler = this.parser.json.samplers?.[ textureDef.sampler ] ?? {};
		texture.wrapS = WRAPPINGS[ sampler.wrapS ] ?? RepeatWrapping;
		texture.wrapT = WRAPPINGS[ sampler.wrapT ] ?? RepeatWrapping;
		texture.magFilter = LinearFilter;
		texture.minFilter = ( texture.mipmaps?.length ?? 1 ) > 1 ? LinearMipmapLinearFilter : LinearFilter;
		texture.generateMipmaps = false;
		texture.flipY = false;
		texture.colorSpace = NoColorSpace;
		texture.userData.qtangent = meta;
		texture.needsUpdate = true;
		const twist = TWIST_LAYERS.get( texture.source );
		if ( twist ) {

			twist.wrapS = texture.wrapS;
			twist.wrapT = texture.wrapT;

		}

		// Bytes on the GPU: the levels as uploaded (compressed, or half floats), both layers.
		meta.bytes = [ texture, twist ].reduce( ( s, t ) => s + ( t?.mipmaps ?? [] ).reduce( ( n, m ) => n + m.data.byteLength, 0 ), 0 );
		return texture;

	}

	/** GLTFLoader hook: every mesh's frames and maps, once the scene is built. */
	async afterRoot( result ) {

		// Each geometry's primitive. Meshes carry it in the parser's associations, but the instanced
		// meshes of EXT_mesh_gpu_instancing are new objects that do not (and the loader drops the
		// associations of objects outside the scene); they share the geometry the loader made for
		// the primitive, which its primitive cache holds.
		const json = this.parser.json;
		this.primitives = new Map();
		for ( const entry of Object.values( this.parser.primitiveCache ?? {} ) ) {

			const geometry = await entry.promise;
			for ( let m = 0; m < ( json.meshes?.length ?? 0 ); m ++ ) {

				const j = json.meshes[ m ].primitives.indexOf( entry.primitive );
				if ( j >= 0 && ! this.primitives.has( geometry ) ) this.primitives.set( geometry, { mesh: m, primitive: j } );

			}

		}

		const pending = [];
		for ( const scene of result.scenes ) scene.traverse( ( object ) => {

			if ( object.isMesh ) pending.push( this._setUpMesh( object ) );

		} );
		await Promise.all( pending );

	}

	/** The glTF mesh and primitive indices of a three.js mesh, or undefined. */
	_primitiveOf( mesh ) {

		const ref = this.parser.associations.get( mesh );
		if ( ref?.meshes !== undefined && ref.primitives !== undefined ) return { mesh: ref.meshes, primitive: ref.primitives };
		return this.primitives?.get( mesh.geometry );

	}

	_setUpGeometry( geometry, primitive ) {

		if ( this.geometries.has( geometry ) ) return this.geometries.get( geometry );
		const attr = geometry.attributes._qtangent;
		let info = { format: undefined, gpu: false };
		if ( attr ) {

			const named = primitive.extensions?.[ EXTENSION ]?.format;
			const array = attr.isInterleavedBufferAttribute ? attr.data.array : attr.array;
			const componentType = array instanceof Float32Array ? 5126 : array instanceof Int16Array ? 5122 : 0;
			const byLayout = formatByLayout( componentType, attr.itemSize, attr.normalized );
			const format = named !== undefined ? formatByName( named ) : byLayout;
			if ( ! format ) throw new Error( `_QTANGENT format '${ named }' is not one qtangent writes (${ FORMATS.map( ( f ) => f.name ).join( ', ' ) })` );
			if ( byLayout !== format ) throw new Error( `_QTANGENT is ${ attr.itemSize } components of type ${ componentType }${ attr.normalized ? ' normalized' : '' }, which ${ format.name } is not (a tool converted the attribute after pack?)` );
			const { bytes, stride } = attributeBytes( attr );
			const count = attr.count;
			let mode = this.mode;
			if ( mode === 'gpu' && Object.keys( geometry.morphAttributes ).length > 0 ) {

				this.warn( `QTangentPlugin: '${ geometry.name || 'geometry' }' has morph targets; its frames are decoded on load` );
				mode = 'decode';

			}

			geometry.deleteAttribute( '_qtangent' );
			if ( mode === 'decode' ) {

				const { normal, tangent } = decodeFrames( format, bytes, count, stride );
				geometry.setAttribute( 'normal', new Float32BufferAttribute( normal, 3 ) );
				geometry.setAttribute( 'tangent', new Float32BufferAttribute( tangent, 4 ) );

			} else {

				geometry.setAttribute( 'qtangent', gpuAttribute( format, bytes, count, stride ) );

			}

			info = { format, gpu: mode === 'gpu' };

		}

		this.geometries.set( geometry, info );
		return info;

	}

	async _setUpMesh( mesh ) {

		const at = this._primitiveOf( mesh );
		if ( ! at ) return;
		const json = this.parser.json;
		const meshDef = json.meshes[ at.mesh ];
		const primitive = meshDef.primitives[ at.primitive ];
		const where = `mesh ${ at.mesh }${ meshDef.name ? ` '${ meshDef.name }'` : '' } primitive ${ at.primitive }`;
		try {

			const info = this._setUpGeometry( mesh.geometry, primitive );
			const materialIndex = primitive.material;
			const materialDef = materialIndex !== undefined ? json.materials?.[ materialIndex ] ?? {} : {};
			const tangentMap = this.useMaps ? materialDef.extensions?.[ EXTENSION ]?.tangentMap : undefined;
			const objectMap = this.useMaps ? primitive.extensions?.[ EXTENSION ]?.objectMap : undefined;
			for ( const [ name, ref ] of [ [ 'tangentMap', tangentMap ], [ 'objectMap', objectMap ] ] ) {

				if ( ref !== undefined && ! Number.isInteger( ref?.index ) ) throw new Error( `its ${ name } has no texture index` );

			}

			if ( ! info.format && ! tangentMap && ! objectMap ) return;
			const key = [ mesh.material.uuid, info.gpu ? info.format.code : - 1, JSON.stringify( tangentMap ?? objectMap ?? null ), tangentMap ? 't' : 'o' ].join( ':' );
			if ( ! this.materials.has( key ) ) this.materials.set( key, this._material( mesh.material, materialDef, info, tangentMap, objectMap ) );
			mesh.material = await this.materials.get( key );
			mesh.userData.qtangent = { format: info.format?.name, gpu: info.gpu, map: tangentMap ? 'tangent' : objectMap ? 'object' : undefined };

		} catch ( e ) {

			const material = primitive.material !== undefined ? ` (material ${ primitive.material }${ json.materials?.[ primitive.material ]?.name ? ` '${ json.materials[ primitive.material ].name }'` : '' })` : '';
			throw new Error( `QTANGENT_frames: ${ where }${ material }: ${ e.message }` );

		}

	}

	async _material( source, materialDef, info, tangentMap, objectMap ) {

		const material = source.clone();
		material.flatShading = false;
		// GLTFLoader flips normalScale.y for geometry without TANGENT (derivative tangents); the
		// frames give it tangents.
		if ( material.normalScale && materialDef.normalTexture ) {

			const s = materialDef.normalTexture.scale ?? 1;
			material.normalScale.set( s, s );

		}

		const clearcoat = materialDef.extensions?.KHR_materials_clearcoat?.clearcoatNormalTexture;
		if ( material.clearcoatNormalScale && clearcoat ) {

			const s = clearcoat.scale ?? 1;
			material.clearcoatNormalScale.set( s, s );

		}

		const q = { format: info.gpu ? info.format.code : undefined, map: undefined };
		material.defines = { ...( material.defines ?? {} ) };
		if ( q.format !== undefined ) {

			material.defines.QT_FORMAT = q.format;
			material.defines.USE_TANGENT = '';

		}

		const mapInfo = tangentMap ?? objectMap;
		if ( mapInfo ) {

			const params = {};
			const texture = await this.parser.assignTexture( params, 'normalMap', mapInfo );
			if ( texture ) {

				q.map = tangentMap ? 'tangent' : 'object';
				material.normalMap = texture;
				material.normalMapType = tangentMap ? TangentSpaceNormalMap : ObjectSpaceNormalMap;
				material.defines.QT_MAP_DECODE = texture.userData.qtangent?.decode ?? MapDecode.PLAIN;
				if ( texture.userData.qtangent?.axial ) material.defines.QT_MAP_AXIAL = '';
				q.twist = TWIST_LAYERS.get( texture.source );
				if ( q.twist ) material.defines.QT_MAP_TWO_LAYERS = '';
				if ( material.defines.QT_MAP_DECODE !== MapDecode.XY && material.defines.QT_MAP_DECODE !== MapDecode.NORMAL ) {

					material.defines.QT_MAP_ROBUST = '';
					material.defines.QT_MAP_LEVELS = Math.max( 1, texture.mipmaps?.length ?? 1 );
					if ( texture.wrapS === RepeatWrapping ) material.defines.QT_MAP_REPEAT = '';

				}

			}

		}

		const cacheKey = `qtangent:${ q.format ?? '' }:${ q.map ?? '' }`;
		material.onBeforeCompile = ( shader ) => patchShader( shader, q );
		material.customProgramCacheKey = () => cacheKey;
		material.userData.qtangent = q;
		material.needsUpdate = true;
		return material;

	}

}

/** The bytes of every element of an attribute (each element's format bytes first) and the stride. */
function attributeBytes( attr ) {

	if ( attr.isInterleavedBufferAttribute ) {

		const a = attr.data.array;
		const bytes = new Uint8Array( a.buffer, a.byteOffset + attr.offset * a.BYTES_PER_ELEMENT, a.byteLength - attr.offset * a.BYTES_PER_ELEMENT );
		return { bytes, stride: attr.data.stride * a.BYTES_PER_ELEMENT };

	}

	const a = attr.array;
	return { bytes: new Uint8Array( a.buffer, a.byteOffset, a.byteLength ), stride: attr.itemSize * a.BYTES_PER_ELEMENT };

}

/** The attribute the vertex shader decodes: the format's own bytes, as the GLSL above reads them. */
function gpuAttribute( format, bytes, count, stride ) {

	if ( format.name === 'f32x4' || format.name === 'snorm16x4' ) {

		const Type = format.name === 'f32x4' ? Float32Array : Int16Array;
		const out = new Uint8Array( count * format.bytes );
		for ( let i = 0; i < count; i ++ ) out.set( bytes.subarray( i * stride, i * stride + format.bytes ), i * format.bytes );
		return new BufferAttribute( new Type( out.buffer ), 4, format.name === 'snorm16x4' );

	}

	const words = format.bytes <= 4 ? 1 : 2;
	const out = new Uint8Array( count * 4 * words );
	for ( let i = 0; i < count; i ++ ) out.set( bytes.subarray( i * stride, i * stride + format.bytes ), i * 4 * words );
	return new BufferAttribute( new Uint32Array( out.buffer ), words );

}

/**
 * The bytes of frames (NORMAL, TANGENT or the plugin's `qtangent` attribute) and of frame textures
 * (normal maps, or the quaternion maps in their place) on the GPU under `root`, each geometry and
 * texture counted once, with its vertex count. A texture the plugin did not load (a PNG normal map)
 * counts as RGBA8 with a full mip chain.
 */
export function gpuBytes( root ) {

	let frames = 0, vertices = 0, textures = 0;
	const geometries = new Set(), maps = new Set();
	root.traverse( ( o ) => {

		if ( ! o.isMesh ) return;
		if ( ! geometries.has( o.geometry ) ) {

			geometries.add( o.geometry );
			vertices += o.geometry.attributes.position.count;
			for ( const n of [ 'normal', 'tangent', 'qtangent' ] ) frames += o.geometry.attributes[ n ]?.array.byteLength ?? 0;

		}

		const t = o.material.normalMap ?? o.material.userData?.qtangent?.texture;
		if ( t && ! maps.has( t.source ) ) {

			maps.add( t.source );
			textures += t.userData.qtangent?.bytes ?? ( t.image?.width ?? 0 ) * ( t.image?.height ?? 0 ) * 4 * 4 / 3;

		}

	} );
	return { frames, vertices, framesPerVertex: vertices ? frames / vertices : 0, textures };

}
