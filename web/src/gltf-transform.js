// QTANGENT_frames for glTF-Transform: register it and qtangent's files keep what they need through
// any glTF-Transform pipeline (the primitive's `_QTANGENT` format and object-space map, the
// material's tangent-space map, the KTX2 map images with their PNG fallbacks).
//
//   import { NodeIO } from '@gltf-transform/core';
//   import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
//   import { QTangentFrames } from 'qtangent-three/gltf-transform';
//   const io = new NodeIO().registerExtensions( [ ...ALL_EXTENSIONS, QTangentFrames ] );
//
// What each common function does to `_QTANGENT` with the extension registered is measured by
// web/test/transform.mjs and listed in docs/WEB.md.

import { Extension, ExtensionProperty, PropertyType, TextureInfo } from '@gltf-transform/core';

export const QTANGENT_FRAMES = 'QTANGENT_frames';

// The 1×1 PNG of the flat normal `pack` writes as every map texture's core `source` (loaders that
// validate every texture need one; src/pack/textures.rs FALLBACK_PNG).
const FALLBACK_PNG_URI = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNoaPj/HwAGggL/bOBDIwAAAABJRU5ErkJggg==';

/** An ExtensionProperty of QTANGENT_frames on `parentType` holding one map, `slot`, and its info. */
function mapProperty( propertyType, parentType, slot, defaults ) {

	return class extends ExtensionProperty {

		static EXTENSION_NAME = QTANGENT_FRAMES;

		init() {

			this.extensionName = QTANGENT_FRAMES;
			this.propertyType = propertyType;
			this.parentTypes = [ parentType ];

		}

		getDefaults() {

			return Object.assign( super.getDefaults(), defaults, { [ slot ]: null, [ `${ slot }Info` ]: new TextureInfo( this.graph, `${ slot }Info` ) } );

		}

	};

}

/** A primitive's QTANGENT_frames: its `_QTANGENT` format and optional object-space map. */
export class QTangentPrimitive extends mapProperty( 'QTangentPrimitive', PropertyType.PRIMITIVE, 'objectMap', { format: null } ) {

	/** The `_QTANGENT` format's name (`smallest3x4`, …). */
	getFormat() { return this.get( 'format' ); }
	setFormat( format ) { return this.set( 'format', format ); }
	/** The object-space quaternion map (a KTX2 Texture), or null. */
	getObjectMap() { return this.getRef( 'objectMap' ); }
	getObjectMapInfo() { return this.getRef( 'objectMap' ) ? this.getRef( 'objectMapInfo' ) : null; }
	setObjectMap( texture ) { return this.setRef( 'objectMap', texture ); }

}

/** A material's QTANGENT_frames: its tangent-space quaternion map. */
export class QTangentMaterial extends mapProperty( 'QTangentMaterial', PropertyType.MATERIAL, 'tangentMap', {} ) {

	/** The tangent-space quaternion map (a KTX2 Texture), or null. */
	getTangentMap() { return this.getRef( 'tangentMap' ); }
	getTangentMapInfo() { return this.getRef( 'tangentMap' ) ? this.getRef( 'tangentMapInfo' ) : null; }
	setTangentMap( texture ) { return this.setRef( 'tangentMap', texture ); }

}

/** The QTANGENT_frames extension (docs/GLTF.md, "The QTANGENT_frames extension"). */
export class QTangentFrames extends Extension {

	static EXTENSION_NAME = QTANGENT_FRAMES;
	extensionName = QTANGENT_FRAMES;
	prereadTypes = [ PropertyType.MESH ];
	prewriteTypes = [ PropertyType.MESH ];

	createPrimitive() { return new QTangentPrimitive( this.document.getGraph() ); }
	createMaterial() { return new QTangentMaterial( this.document.getGraph() ); }

	/** @hidden Before the other extensions read, so KHR_texture_transform sees the maps' texture
	 * infos; the primitives' properties wait in `_pending` until `read` (primitives exist then). */
	preread( context ) {

		const json = context.jsonDoc.json;
		const mapTexture = ( infoDef, what ) => {

			const textureDef = json.textures?.[ infoDef.index ];
			const source = textureDef?.extensions?.[ QTANGENT_FRAMES ]?.source ?? textureDef?.source;
			const texture = context.textures[ source ];
			if ( ! texture ) throw new Error( `${ QTANGENT_FRAMES }: ${ what } names texture ${ infoDef.index }, which has no image` );
			return texture;

		};

		( json.materials ?? [] ).forEach( ( def, i ) => {

			const ext = def.extensions?.[ QTANGENT_FRAMES ];
			if ( ! ext?.tangentMap ) return;
			const p = this.createMaterial().setTangentMap( mapTexture( ext.tangentMap, `material ${ i }'s tangentMap` ) );
			context.setTextureInfo( p.getTangentMapInfo(), ext.tangentMap );
			context.materials[ i ].setExtension( QTANGENT_FRAMES, p );

		} );
		// The core sources of the map textures (the flat-normal PNG fallbacks): dropped after the
		// read where nothing else uses them, since write() adds one fallback of its own.
		this._fallbacks = new Set( ( json.textures ?? [] ).filter( ( t ) => t.extensions?.[ QTANGENT_FRAMES ] && t.source !== undefined ).map( ( t ) => t.source ) );
		this._pending = [];
		( json.meshes ?? [] ).forEach( ( meshDef, m ) => ( meshDef.primitives ?? [] ).forEach( ( def, j ) => {

			const ext = def.extensions?.[ QTANGENT_FRAMES ];
			if ( ! ext ) return;
			const p = this.createPrimitive();
			if ( ext.format !== undefined ) p.setFormat( ext.format );
			if ( ext.objectMap ) {

				p.setObjectMap( mapTexture( ext.objectMap, `mesh ${ m } primitive ${ j }'s objectMap` ) );
				context.setTextureInfo( p.getObjectMapInfo(), ext.objectMap );

			}

			this._pending.push( [ m, j, p ] );

		} ) );
		return this;

	}

	/** @hidden */
	read( context ) {

		for ( const [ m, j, p ] of this._pending ?? [] ) context.meshes[ m ].listPrimitives()[ j ].setExtension( QTANGENT_FRAMES, p );
		for ( const i of this._fallbacks ?? [] ) {

			const texture = context.textures[ i ];
			// Only the document's root lists it: no material, map or other extension uses it.
			if ( texture && texture.listParents().every( ( p ) => p.propertyType === PropertyType.ROOT ) ) texture.dispose();

		}

		this._pending = undefined;
		this._fallbacks = undefined;
		return this;

	}

	/** @hidden Each map's texture reference (by its property), before KHR_texture_transform writes
	 * their transforms. */
	prewrite( context ) {

		this._defs = new Map();
		const root = this.document.getRoot();
		for ( const material of root.listMaterials() ) {

			const p = material.getExtension( QTANGENT_FRAMES );
			if ( p?.getTangentMap() ) this._defs.set( p, context.createTextureInfoDef( p.getTangentMap(), p.getTangentMapInfo() ) );

		}

		for ( const mesh of root.listMeshes() ) for ( const prim of mesh.listPrimitives() ) {

			const p = prim.getExtension( QTANGENT_FRAMES );
			if ( p?.getObjectMap() ) this._defs.set( p, context.createTextureInfoDef( p.getObjectMap(), p.getObjectMapInfo() ) );

		}

		return this;

	}

	/** @hidden */
	write( context ) {

		const json = context.jsonDoc.json;
		const defs = this._defs ?? new Map();
		// Each map texture def and its image: from the writer's own index (KHR_texture_basisu, which
		// writes first where the file uses it, moves every KTX2 texture's source into itself).
		const mapTextures = new Map();
		const mapTexture = ( def, texture ) => mapTextures.set( def.index, context.imageIndexMap.get( texture ) );
		for ( const material of this.document.getRoot().listMaterials() ) {

			const p = material.getExtension( QTANGENT_FRAMES );
			if ( ! p ) continue;
			const def = json.materials[ context.materialIndexMap.get( material ) ];
			const ext = {};
			if ( defs.has( p ) ) {

				ext.tangentMap = defs.get( p );
				mapTexture( ext.tangentMap, p.getTangentMap() );

			}

			def.extensions = { ...( def.extensions ?? {} ), [ QTANGENT_FRAMES ]: ext };

		}

		for ( const mesh of this.document.getRoot().listMeshes() ) {

			const meshDef = json.meshes[ context.meshIndexMap.get( mesh ) ];
			mesh.listPrimitives().forEach( ( prim, j ) => {

				const p = prim.getExtension( QTANGENT_FRAMES );
				if ( ! p ) return;
				const ext = {};
				if ( p.getFormat() !== null ) ext.format = p.getFormat();
				if ( defs.has( p ) ) {

					ext.objectMap = defs.get( p );
					mapTexture( ext.objectMap, p.getObjectMap() );

				}

				const def = meshDef.primitives[ j ];
				def.extensions = { ...( def.extensions ?? {} ), [ QTANGENT_FRAMES ]: ext };

			} );

		}

		// The map's KTX2 image moves into the texture's extension; the core source is the PNG.
		if ( mapTextures.size > 0 ) {

			json.images = json.images ?? [];
			const fallback = json.images.length;
			json.images.push( { name: 'fallback for quaternion maps (QTANGENT_frames)', mimeType: 'image/png', uri: FALLBACK_PNG_URI } );
			for ( const [ t, image ] of mapTextures ) {

				const textureDef = json.textures[ t ];
				const { KHR_texture_basisu: _, ...others } = textureDef.extensions ?? {};
				textureDef.extensions = { ...others, [ QTANGENT_FRAMES ]: { source: image } };
				textureDef.source = fallback;

			}

		}

		this._defs = undefined;
		return this;

	}

}
