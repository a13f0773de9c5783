<?php
/**
 * The plugin's PHP against the running service (store-extensions/woocommerce/e2e.test.ts): the WordPress stubs of
 * tests/bootstrap.php set the scene from a JSON document on stdin, the HTTP stub makes real requests, and
 * what the plugin did is printed as JSON.
 *
 *   php driver.php handoff  {serviceUrl, connectionKey, keys: {key: secret}, home, currency, cart: [{product_id, variation_id, quantity}]}
 *                           → {redirects: [[url, status]], requests: [{url}], backoff}
 *   php driver.php lookup   {token, caps, orders: [{id, status, created, paid, total, transaction_id, meta}]}
 *                           → the route's answer: the order, or {code, message, data} for a WP_Error
 *
 * @package HostedCheckoutConnector
 */

require dirname( __DIR__ ) . '/bootstrap.php';

$hc_command = $argv[1] ?? '';
$hc_scene   = json_decode( (string) stream_get_contents( STDIN ), true );
if ( ! is_array( $hc_scene ) ) {
	fwrite( STDERR, "stdin must be a JSON object\n" );
	exit( 2 );
}

if ( 'handoff' === $hc_command ) {
	$GLOBALS['hc_wp']['options']  = array(
		HOSTED_CHECKOUT_OPTION_SERVICE_URL      => $hc_scene['serviceUrl'],
		HOSTED_CHECKOUT_OPTION_CONNECTION_KEY   => $hc_scene['connectionKey'],
	);
	$GLOBALS['hc_wp']['keys']     = $hc_scene['keys'];
	$GLOBALS['hc_wp']['home']     = rtrim( $hc_scene['home'], '/' ) . '/';
	$GLOBALS['hc_wp']['currency'] = $hc_scene['currency'];
	$GLOBALS['hc_wp']['cart']     = $hc_scene['cart'];
	$GLOBALS['hc_wp']['http']     = 'real';
	// The shopper's request would end with the redirect; here the script goes on to report it.
	add_filter( 'hosted_checkout_exit_after_redirect', static function () {
		return false;
	} );
	do_template_redirect();
	echo json_encode(
		array(
			'redirects' => $GLOBALS['hc_wp']['redirects'],
			'requests'  => array_map(
				static function ( $r ) {
					return array( 'url' => $r['url'] );
				},
				$GLOBALS['hc_wp']['requests']
			),
			'backoff'   => (bool) get_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF ),
		)
	);
	exit( 0 );
}

if ( 'lookup' === $hc_command ) {
	$GLOBALS['hc_wp']['orders'] = $hc_scene['orders'];
	$GLOBALS['hc_wp']['caps']   = $hc_scene['caps'] ?? array( 'read_private_shop_orders' );
	foreach ( $GLOBALS['hc_wp_boot_actions']['rest_api_init'] as $callback ) {
		$callback();
	}
	$route = $GLOBALS['hc_wp']['routes']['wc-hosted-checkout/v1/orders/by-session/(?P<token>[A-Za-z0-9_-]{8,128})'];
	if ( ! preg_match( '#^[A-Za-z0-9_-]{8,128}$#', $hc_scene['token'] ) ) {
		echo json_encode( array( 'code' => 'rest_no_route', 'data' => array( 'status' => 404 ) ) );
		exit( 0 );
	}
	if ( ! $route['permission_callback']() ) {
		echo json_encode( array( 'code' => 'rest_forbidden', 'data' => array( 'status' => 401 ) ) );
		exit( 0 );
	}
	$answer = $route['callback']( new WP_REST_Request( array( 'token' => $hc_scene['token'] ) ) );
	echo json_encode(
		is_wp_error( $answer )
			? array( 'code' => $answer->get_error_code(), 'message' => $answer->get_error_message(), 'data' => $answer->get_error_data() )
			: $answer
	);
	exit( 0 );
}

fwrite( STDERR, "usage: php driver.php handoff|lookup < scene.json\n" );
exit( 2 );

/** WordPress's template_redirect as far as the plugin hooks it: every callback the plugin added at load. */
function do_template_redirect() {
	foreach ( $GLOBALS['hc_wp_boot_actions']['template_redirect'] as $callback ) {
		$callback();
	}
}
