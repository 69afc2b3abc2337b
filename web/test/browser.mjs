// Debian's chromium, headless, driven by puppeteer-core: WebGL2 on SwiftShader (the machine has
// no GPU). Shared by the tests (run.mjs) and the viewer's screenshots.

import puppeteer from 'puppeteer-core';
import { existsSync } from 'node:fs';

export function chromiumPath() {

	const candidates = [ process.env.QTANGENT_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome' ].filter( Boolean );
	const found = candidates.find( ( p ) => existsSync( p ) );
	if ( ! found ) throw new Error( `no Chromium found (looked for ${ candidates.join( ', ' ) }); install Debian's chromium (apt-get install chromium) or set QTANGENT_CHROMIUM` );
	return found;

}

export async function launch() {

	return puppeteer.launch( {
		executablePath: chromiumPath(),
		headless: true,
		args: [
			'--headless=new', '--no-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--ignore-gpu-blocklist',
			'--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
			'--window-size=512,512',
		],
		protocolTimeout: 600000,
	} );

}

/** A page at `url` whose console errors and warnings (and page errors) are collected in `messages`. */
export async function open( browser, url, messages ) {

	const page = await browser.newPage();
	page.on( 'console', ( m ) => {

		if ( m.type() === 'error' || m.type() === 'warn' || m.type() === 'warning' ) messages.push( `${ m.type() }: ${ m.text() }` );

	} );
	page.on( 'pageerror', ( e ) => messages.push( `page error: ${ e.message }` ) );
	// ERR_ABORTED: Chromium's word for a response body the page stopped reading once it had it
	// (three.js' FileLoader reads .glb files as a stream); anything else is a failure.
	page.on( 'requestfailed', ( r ) => {

		if ( r.failure()?.errorText !== 'net::ERR_ABORTED' ) messages.push( `request failed: ${ r.url() } (${ r.failure()?.errorText })` );

	} );
	await page.setViewport( { width: 512, height: 512 } );
	await page.goto( url, { waitUntil: 'load' } );
	return page;

}
