// qtangent's three.js plugin for WebGPURenderer (node materials, TSL), on its WebGPU and its WebGL2
// backends: the frames decoded on load into NORMAL and TANGENT, the quaternion maps read by a
// `normalNode` (and an `anisotropyNode` for KHR_materials_anisotropy) that do what the WebGL
// plugin's GLSL does (qtangent-three/three). Import it from `qtangent-three/webgpu`; it needs
// three.js r185 or newer (TSL's `negateOnBackSide`), and is tested on r187's WebGL2 backend.

import {
	RepeatWrapping, MeshPhysicalNodeMaterial, MeshStandardNodeMaterial, MeshLambertNodeMaterial,
	MeshPhongNodeMaterial, MeshBasicNodeMaterial,
} from 'three/webgpu';
import {
	Fn, If, vec2, vec4, float, int, ivec2, texture, textureLoad, textureSize, normalView, tangentView,
	bitangentView, transformNormalToView, uv, negateOnBackSide, dot, cross, sqrt, max, normalize, inverseSqrt,
	floor, round, clamp, log2, dFdx, dFdy, select, reference,
} from 'three/tsl';

import { QTangentPlugin as WebGLPlugin, MapDecode } from './three.js';

const quatMul = ( a, b ) => vec4( a.w.mul( b.xyz ).add( b.w.mul( a.xyz ) ).add( cross( a.xyz, b.xyz ) ), a.w.mul( b.w ).sub( dot( a.xyz, b.xyz ) ) );

/**
 * `v` over its length, or 0 where it has none (normalize would give NaN): a map tangent along the
 * vertex normal has no direction in the vertex frame's (t, b); there three.js takes a direction of
 * (1, 0) at strength 0 (its anisotropic lobe at strength 0: finite, where NaN was black).
 */
const unit = ( v ) => v.div( max( v.length(), float( 1e-6 ) ) );

/**
 * Classes whose `useAnisotropy` follows the strength alone (one per material class), so that an
 * anisotropyNode with an anisotropy of 0 lights isotropically; a prototype rather than a property
 * of the instance, so `material.clone()` keeps it.
 */
const isotropicAtZero = new Map();

/** z ≥ 0 rebuilt from (x, y) of a unit vector. */
const rebuild = ( xy ) => sqrt( max( float( 0 ), float( 1 ).sub( dot( xy, xy ) ) ) );

/** A map sample `s` (and its second layer's `s2`) as a quaternion: GLSL_MAP's qtMapDecode. */
function decode( mode, s, s2 ) {

	switch ( mode ) {

		case MapDecode.XY: return vec4( s.xy, 0, rebuild( s.xy ) );
		case MapDecode.ZW: return vec4( 0, 0, s.xy );
		case MapDecode.UNORM: return s.mul( 2 ).sub( 1 );
		case MapDecode.NORMAL_TWIST: {

			// The normal (x, y, z ≥ 0 rebuilt): the arc from +Z to it, then the twist.
			const arc = normalize( vec4( s.y.negate(), s.x, 0, rebuild( s.xy ).add( 1 ) ) );
			return quatMul( arc, vec4( 0, 0, s2.xy ) );

		}

		case MapDecode.NORMAL: {

			const n = s.xy.mul( 2 ).sub( 1 );
			return normalize( vec4( n.y.negate(), n.x, 0, rebuild( n ).add( 1 ) ) );

		}

		case MapDecode.PAIR: return quatMul( vec4( s.xy, 0, rebuild( s.xy ) ), vec4( 0, 0, s2.xy ) );
		default: return s;

	}

}

/** swing ⊗ rot_z(2φ) → swing ⊗ rot_z(φ): GLSL_MAP's qtHalveTwist (an axial map's doubled twist). */
const halveTwist = Fn( ( [ r ] ) => {

	const out = vec4( r ).toVar();
	const tl2 = r.z.mul( r.z ).add( r.w.mul( r.w ) );
	If( tl2.greaterThanEqual( 1e-24 ), () => {

		const t = vec4( 0, 0, r.z, r.w ).mul( inverseSqrt( tl2 ) );
		const swing = quatMul( r, vec4( 0, 0, t.z.negate(), t.w ) );
		const h = t.add( vec4( 0, 0, 0, 1 ) );
		const hl2 = dot( h, h );
		const half = select( hl2.greaterThanEqual( 1e-24 ), h.mul( inverseSqrt( hl2 ) ), vec4( 0, 0, 0, 1 ) );
		out.assign( quatMul( swing, half ) );

	} );
	return out;

} );

/**
 * The map's rotation at the pixel as a unit quaternion: the sample decoded, the seam-robust
 * re-sampling where the filtered quaternion is short (GLSL_MAP's qtMapRobust), an axial twist
 * halved. `bias`: levels of detail added (the object-space map is read one level finer).
 */
function mapRotation( map, twist, meta, bias ) {

	return Fn( () => {

		// One UV for every read of the map and its twist layer: the map's channel, through its
		// transform (KHR_texture_transform, which GLTFLoader sets on the map alone), as the GLSL's
		// vNormalMapUv.
		const uvAt = texture( map ).getTransformedUV( uv( map.channel ?? 0 ) ).toVar();
		const sample = ( t ) => ( bias === 0 ? texture( t, uvAt ) : texture( t, uvAt ).bias( float( bias ) ) );
		const s2 = twist ? sample( twist ) : vec4( 0 );
		const r = vec4( decode( meta.decode, sample( map ), s2 ) ).toVar();
		if ( meta.decode !== MapDecode.XY && meta.decode !== MapDecode.NORMAL ) {

			// The level hardware sampling picks (isotropic), from derivatives taken in uniform
			// control flow: declared (toVar) here, before the branch, so TSL emits them here.
			const size0 = vec2( textureSize( texture( map ), int( 0 ) ) );
			const dx = dFdx( uvAt ).mul( size0 ).toVar(), dy = dFdy( uvAt ).mul( size0 ).toVar();
			const lod = max( float( 0.5 ).mul( log2( max( max( dot( dx, dx ), dot( dy, dy ) ), 1e-12 ) ) ).add( bias ), 0 ).toVar();
			If( dot( r, r ).lessThan( 0.81 ), () => {

				const level = clamp( int( round( lod ) ), int( 0 ), int( Math.max( 1, map.mipmaps?.length ?? 1 ) - 1 ) );
				const dims = ivec2( textureSize( texture( map ), level ) ).toVar();
				const st = uvAt.mul( vec2( dims ) ).sub( 0.5 );
				const i0 = ivec2( floor( st ) );
				const f = st.sub( floor( st ) );
				const repeat = map.wrapS === RepeatWrapping;
				const texel = ( p ) => {

					const c = repeat ? p.mod( dims ).add( dims ).mod( dims ) : clamp( p, ivec2( 0 ), dims.sub( 1 ) );
					return decode( meta.decode, textureLoad( map, c, level ), twist ? textureLoad( twist, c, level ) : vec4( 0 ) );

				};

				const a = vec4( texel( i0 ) ).toVar(), b = vec4( texel( i0.add( ivec2( 1, 0 ) ) ) ).toVar();
				const c = vec4( texel( i0.add( ivec2( 0, 1 ) ) ) ).toVar(), d = vec4( texel( i0.add( ivec2( 1, 1 ) ) ) ).toVar();
				const w = vec4( f.x.oneMinus().mul( f.y.oneMinus() ), f.x.mul( f.y.oneMinus() ), f.x.oneMinus().mul( f.y ), f.x.mul( f.y ) );
				const strongest = vec4( a ).toVar();
				const best = float( w.x ).toVar();
				If( w.y.greaterThan( best ), () => {

					best.assign( w.y );
					strongest.assign( b );

				} );
				If( w.z.greaterThan( best ), () => {

					best.assign( w.z );
					strongest.assign( c );

				} );
				If( w.w.greaterThan( best ), () => {

					strongest.assign( d );

				} );
				const signed = ( q, weight ) => q.mul( weight ).mul( select( dot( q, strongest ).greaterThanEqual( 0 ), float( 1 ), float( - 1 ) ) );
				r.assign( signed( a, w.x ).add( signed( b, w.y ) ).add( signed( c, w.z ) ).add( signed( d, w.w ) ) );

			} );

		}

		const q = meta.axial ? halveTwist( r ) : r;
		return q.mul( inverseSqrt( max( dot( q, q ), 1e-30 ) ) );

	} )();

}

/** The rotation's images of +X, +Y and +Z (qtQuatToMat3's columns). */
function axes( q ) {

	const x2 = q.x.mul( q.x ), y2 = q.y.mul( q.y ), z2 = q.z.mul( q.z ), w2 = q.w.mul( q.w );
	const xy = q.x.mul( q.y ).mul( 2 ), xz = q.x.mul( q.z ).mul( 2 ), yz = q.y.mul( q.z ).mul( 2 );
	const wx = q.w.mul( q.x ).mul( 2 ), wy = q.w.mul( q.y ).mul( 2 ), wz = q.w.mul( q.z ).mul( 2 );
	return {
		x: [ w2.add( x2 ).sub( y2 ).sub( z2 ), xy.add( wz ), xz.sub( wy ) ],
		y: [ xy.sub( wz ), w2.sub( x2 ).add( y2 ).sub( z2 ), yz.add( wx ) ],
		z: [ xz.add( wy ), yz.sub( wx ), w2.sub( x2 ).sub( y2 ).add( z2 ) ],
	};

}

/**
 * GLTFLoader plugin for WebGPURenderer: `new QTangentPlugin( parser, { renderer } )` as the WebGL
 * plugin, with node materials. The frames are decoded on load (mode 'decode', the only mode: the
 * vertex-shader decode is the WebGL plugin's). Pass the renderer after `await renderer.init()`.
 */
export class QTangentPlugin extends WebGLPlugin {

	static nodeMaterials = true;

	/**
	 * three.js lights anisotropically wherever an anisotropyNode is set; the plugin's node turns
	 * the direction, so an anisotropy of 0 must still light isotropically, as three.js lights the
	 * material without the map (its anisotropic lobe at strength 0 is not the isotropic one: 20.96
	 * against 41.82 dB on the bumpy disc). `material` becomes an instance of a subclass of its
	 * class whose `useAnisotropy` is `anisotropy > 0` (clones are made from that subclass too).
	 * @internal
	 */
	static _isotropicAtZero( material ) {

		const base = Object.getPrototypeOf( material ).constructor;
		if ( base.qtangentIsotropicAtZero ) return material;
		let sub = isotropicAtZero.get( base );
		if ( ! sub ) {

			sub = class extends base {

				static qtangentIsotropicAtZero = true;

				get useAnisotropy() {

					return this.anisotropy > 0;

				}

			};
			Object.defineProperty( sub, 'name', { value: base.name } );
			isotropicAtZero.set( base, sub );

		}

		Object.setPrototypeOf( material, sub.prototype );
		return material;

	}

	constructor( parser, options = {} ) {

		if ( ( options.mode ?? 'decode' ) !== 'decode' ) throw new Error( `qtangent-three/webgpu: mode '${ options.mode }': with node materials the frames are decoded on load (mode 'decode'); the vertex-shader decode ('gpu') is qtangent-three/three's, for WebGLRenderer` );
		super( parser, { ...options, mode: 'decode' } );

	}

	/** Whether the device samples a compressed format, asked of WebGPURenderer's backend. */
	_hasExtension( name ) {

		if ( name === 'EXT_texture_compression_rgtc' && ! this.compressed ) return false;
		const r = this.renderer;
		if ( ! r ) throw new Error( 'QTangentPlugin: pass { renderer } to read quaternion maps (it says which compressed formats the device samples)' );
		if ( ! r.isWebGPURenderer ) return super._hasExtension( name );
		// The WebGL2 backend: its extensions; WebGPU: 'texture-compression-bc' holds BC5 and BC7.
		if ( r.backend?.isWebGLBackend ) return r.backend.extensions.has( name );
		return r.hasFeature( 'texture-compression-bc' );

	}

	async _material( source, materialDef, info, tangentMap, objectMap ) {

		const NodeClass = { MeshPhysicalMaterial: MeshPhysicalNodeMaterial, MeshStandardMaterial: MeshStandardNodeMaterial,
			MeshLambertMaterial: MeshLambertNodeMaterial, MeshPhongMaterial: MeshPhongNodeMaterial,
			MeshBasicMaterial: MeshBasicNodeMaterial }[ source.type ];
		let material;
		if ( source.isNodeMaterial ) material = source.clone();
		else if ( NodeClass ) {

			// As three.js' NodeLibrary converts a material: every property copied.
			material = new NodeClass();
			for ( const key in source ) if ( key !== 'uuid' && key !== 'id' ) material[ key ] = source[ key ];

		} else throw new Error( `its material is a ${ source.type }, which has no node material here` );
		material.flatShading = false;
		// The copy shares the source's objects; the scales are set on copies of their own, as
		// the WebGL plugin does: GLTFLoader flips y for geometry without TANGENT (derivative
		// tangents), and the frames give it tangents.
		if ( material.normalScale && materialDef.normalTexture ) {

			const s = materialDef.normalTexture.scale ?? 1;
			material.normalScale = material.normalScale.clone().set( s, s );

		}

		const clearcoat = materialDef.extensions?.KHR_materials_clearcoat?.clearcoatNormalTexture;
		if ( material.clearcoatNormalScale && clearcoat ) {

			const s = clearcoat.scale ?? 1;
			material.clearcoatNormalScale = material.clearcoatNormalScale.clone().set( s, s );

		}

		const q = { format: undefined, map: undefined };
		const mapInfo = tangentMap ?? objectMap;
		const lit = ! material.isMeshBasicNodeMaterial;
		if ( mapInfo && lit ) {

			const params = {};
			const map = await this.parser.assignTexture( params, 'normalMap', mapInfo );
			if ( map ) {

				q.map = tangentMap ? 'tangent' : 'object';
				const meta = { decode: map.userData.qtangent?.decode ?? MapDecode.PLAIN, axial: map.userData.qtangent?.axial ?? false };
				const twist = this._twistOf( map );
				q.twist = twist;
				// The map is read by the node, not as three.js' normal map (gpuBytes counts it here).
				q.texture = map;
				material.normalMap = null;
				const r = mapRotation( map, twist, meta, tangentMap ? 0 : - 1 );
				const { x, y, z } = axes( r );
				if ( tangentMap ) {

					// [t, b, n] of the vertex frame (three.js' own, faces already flipped) times the rotation.
					material.normalNode = tangentView.mul( z[ 0 ] ).add( bitangentView.mul( z[ 1 ] ) ).add( normalView.mul( z[ 2 ] ) ).normalize();
					if ( material.isMeshPhysicalNodeMaterial && materialDef.extensions?.KHR_materials_anisotropy ) {

						// As the WebGL plugin: with an anisotropy texture, the direction is the map's
						// tangent (the map was baked with the texture's direction) and the strength the
						// material's times the texture's B; without one, the material's direction
						// (anisotropyRotation) in the map's frame. Either in the vertex frame's (t, b),
						// where three.js reads the node.
						material.anisotropyNode = Fn( ( { material: m } ) => {

							const strength = reference( 'anisotropy', 'float', m );
							if ( m.anisotropyMap ) return unit( vec2( x[ 0 ], x[ 1 ] ) ).mul( strength.mul( texture( m.anisotropyMap ).b ) );
							const turn = reference( 'anisotropyRotation', 'float', m );
							const along = vec2( x[ 0 ], x[ 1 ] ).mul( turn.cos() ).add( vec2( y[ 0 ], y[ 1 ] ).mul( turn.sin() ) );
							return unit( along ).mul( strength );

						} )();
						QTangentPlugin._isotropicAtZero( material );

					}

				} else {

					// The frame from the map alone, in object space, moved to view space.
					material.normalNode = transformNormalToView( negateOnBackSide( vec4( z[ 0 ], z[ 1 ], z[ 2 ], 0 ).xyz ) ).normalize();

				}

			}

		}

		material.userData = { ...material.userData, qtangent: q };
		material.needsUpdate = true;
		return material;

	}

}
