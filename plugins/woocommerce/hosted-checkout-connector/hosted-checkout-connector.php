<?php
/**
 * Plugin Name:          Hosted Checkout Connector
 * Plugin URI:           https://github.com/checkout-service/checkout-service
 * Description:          Sends the WooCommerce checkout to your hosted checkout: the cart is handed over server-to-server and the shopper is redirected; the native checkout stays the fallback.
 * Version:              1.0.0
 * Requires at least:    6.2
 * Requires PHP:         7.4
 * Requires Plugins:     woocommerce
 * WC requires at least: 8.0
 * WC tested up to:      9.5
 * Author:               Checkout Service
 * License:              GPL-2.0-or-later
 * License URI:          https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:          hosted-checkout-connector
 *
 * @package HostedCheckoutConnector
 */

defined( 'ABSPATH' ) || exit;

define( 'HC_VERSION', '1.0.0' );
define( 'HC_PLUGIN_FILE', __FILE__ );
/** Order meta carrying our checkout session token (the service writes it with the order). */
define( 'HC_SESSION_META', '_hosted_checkout_session' );
/** Option names (autoload off). */
define( 'HC_OPTION_SERVICE_URL', 'hosted_checkout_service_url' );
define( 'HC_OPTION_CONNECTION_KEY', 'hosted_checkout_connection_key' );
/** Transient set while the service is failing, so checkouts are not slowed by it. */
define( 'HC_TRANSIENT_BACKOFF', 'hosted_checkout_backoff' );
/** The shopper waits for the handoff: keep it short, then fall back to the native checkout. */
define( 'HC_HANDOFF_TIMEOUT', 4 );

require_once __DIR__ . '/includes/class-hc-signature.php';
require_once __DIR__ . '/includes/class-hc-settings.php';
require_once __DIR__ . '/includes/class-hc-handoff.php';
require_once __DIR__ . '/includes/class-hc-rest.php';

add_action( 'template_redirect', array( 'HC_Handoff', 'maybe_intercept' ) );
add_action( 'rest_api_init', array( 'HC_Rest', 'register_routes' ) );
add_action( 'admin_menu', array( 'HC_Settings', 'add_page' ) );
add_action( 'admin_init', array( 'HC_Settings', 'register' ) );
add_action( 'admin_post_hc_test_connection', array( 'HC_Settings', 'test_connection' ) );

// Declare HPOS and block checkout compatibility: only CRUD APIs are used on orders.
add_action(
	'before_woocommerce_init',
	static function () {
		if ( class_exists( '\Automattic\WooCommerce\Utilities\FeaturesUtil' ) ) {
			\Automattic\WooCommerce\Utilities\FeaturesUtil::declare_compatibility( 'custom_order_tables', HC_PLUGIN_FILE, true );
			\Automattic\WooCommerce\Utilities\FeaturesUtil::declare_compatibility( 'cart_checkout_blocks', HC_PLUGIN_FILE, true );
		}
	}
);

register_deactivation_hook( __FILE__, static function () {
	delete_transient( HC_TRANSIENT_BACKOFF );
} );
