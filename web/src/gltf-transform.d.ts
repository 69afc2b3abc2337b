// Types of gltf-transform.js: the QTANGENT_frames extension for glTF-Transform
// (qtangent-three/gltf-transform).

import { Extension, ExtensionProperty, Texture, TextureInfo } from '@gltf-transform/core';
import type { IProperty, PropertyType, ReaderContext, WriterContext } from '@gltf-transform/core';

/** The extension's name: `QTANGENT_frames`. */
export declare const QTANGENT_FRAMES: 'QTANGENT_frames';

interface IQTangentPrimitive extends IProperty {
	format: string | null;
	objectMap: Texture;
	objectMapInfo: TextureInfo;
}

interface IQTangentMaterial extends IProperty {
	tangentMap: Texture;
	tangentMapInfo: TextureInfo;
}

/** A primitive's QTANGENT_frames: its `_QTANGENT` format and optional object-space map. */
export declare class QTangentPrimitive extends ExtensionProperty<IQTangentPrimitive> {
	static EXTENSION_NAME: 'QTANGENT_frames';
	extensionName: 'QTANGENT_frames';
	propertyType: 'QTangentPrimitive';
	parentTypes: [ PropertyType.PRIMITIVE ];
	protected init(): void;
	/** The `_QTANGENT` format's name (`smallest3x4`, …). */
	getFormat(): string | null;
	setFormat( format: string | null ): this;
	/** The object-space quaternion map (a KTX2 texture), or null. */
	getObjectMap(): Texture | null;
	getObjectMapInfo(): TextureInfo | null;
	setObjectMap( texture: Texture | null ): this;
}

/** A material's QTANGENT_frames: its tangent-space quaternion map. */
export declare class QTangentMaterial extends ExtensionProperty<IQTangentMaterial> {
	static EXTENSION_NAME: 'QTANGENT_frames';
	extensionName: 'QTANGENT_frames';
	propertyType: 'QTangentMaterial';
	parentTypes: [ PropertyType.MATERIAL ];
	protected init(): void;
	/** The tangent-space quaternion map (a KTX2 texture), or null. */
	getTangentMap(): Texture | null;
	getTangentMapInfo(): TextureInfo | null;
	setTangentMap( texture: Texture | null ): this;
}

/** The QTANGENT_frames extension: register it with `io.registerExtensions( [ QTangentFrames ] )`. */
export declare class QTangentFrames extends Extension {
	static EXTENSION_NAME: 'QTANGENT_frames';
	readonly extensionName: 'QTANGENT_frames';
	createPrimitive(): QTangentPrimitive;
	createMaterial(): QTangentMaterial;
	read( context: ReaderContext ): this;
	write( context: WriterContext ): this;
}


