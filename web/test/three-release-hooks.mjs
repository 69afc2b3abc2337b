// The resolve hook of three-release.mjs: `three` and `three/…` → `<name>` and `<name>/…`.

let name;

export function initialize( data ) {

	name = data.name;

}

export function resolve( specifier, context, next ) {

	if ( specifier === 'three' ) return next( name, context );
	if ( specifier.startsWith( 'three/' ) ) return next( name + specifier.slice( 5 ), context );
	return next( specifier, context );

}
