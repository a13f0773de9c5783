<?php
/**
 * Plugin Name:          Hosted Checkout Connector
 * Plugin URI:           https://github.com/checkout-service/checkout-service
 * Description:          Sends the WooCommerce checkout to your hosted checkout: the cart is handed over server-to-server and the shopper is redirected; the native checkout stays the fallback.
 * Version:              1.4.0
 * Requires at least:    6.2
 * Requires PHP:         7.4
 * Requires Plugins:     woocommerce
 * WC requires at least: 8.0
 * WC tested up to:      10.0
 * Author:               Checkout Service
 * License:              GPL-2.0-or-later
 * License URI:          https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:          hosted-checkout-connector
 *
 * @package HostedCheckoutConnector
 */

defined( 'ABSPATH' ) || exit;

define( 'HOSTED_CHECKOUT_VERSION', '1.4.0' );
define( 'HOSTED_CHECKOUT_PLUGIN_FILE', __FILE__ );
/** Order meta carrying our checkout session token (the service writes it with the order). */
define( 'HOSTED_CHECKOUT_SESSION_META', '_hosted_checkout_session' );
/** Option names (created not autoloaded: only checkout requests and the settings page read them). */
define( 'HOSTED_CHECKOUT_OPTION_SERVICE_URL', 'hosted_checkout_service_url' );
define( 'HOSTED_CHECKOUT_OPTION_CONNECTION_KEY', 'hosted_checkout_connection_key' );
/** Transient set while the service is failing or does not know this store, so checkouts are not slowed by it. */
define( 'HOSTED_CHECKOUT_TRANSIENT_BACKOFF', 'hosted_checkout_backoff' );
/** Seconds without handoffs after the service failed or timed out. */
define( 'HOSTED_CHECKOUT_BACKOFF_OUTAGE', 60 );
/** Seconds without handoffs after the service answered that it knows no such store (not connected, or disconnected). */
define( 'HOSTED_CHECKOUT_BACKOFF_NOT_CONNECTED', 300 );
/** The shopper waits for the handoff: keep it short, then fall back to the native checkout. */
define( 'HOSTED_CHECKOUT_HANDOFF_TIMEOUT', 4 );
/** After a handed-over checkout, how often (seconds, per shopper) a page load asks the service whether it was paid. */
define( 'HOSTED_CHECKOUT_PAID_CHECK_INTERVAL', 5 );
/** That question must never hold a page up for long: a short time-out, and a failure is ignored. */
define( 'HOSTED_CHECKOUT_PAID_CHECK_TIMEOUT', 2 );

require_once __DIR__ . '/includes/class-hosted-checkout-signature.php';
require_once __DIR__ . '/includes/class-hosted-checkout-settings.php';
require_once __DIR__ . '/includes/class-hosted-checkout-cart.php';
require_once __DIR__ . '/includes/class-hosted-checkout-handoff.php';
require_once __DIR__ . '/includes/class-hosted-checkout-rest.php';

// The cart check runs first: a cart already paid for through us is emptied before the checkout would hand it over again.
add_action( 'template_redirect', array( 'Hosted_Checkout_Cart', 'maybe_empty_paid_cart' ), 5 );
add_action( 'template_redirect', array( 'Hosted_Checkout_Handoff', 'maybe_intercept' ) );
add_action( 'rest_api_init', array( 'Hosted_Checkout_Rest', 'register_routes' ) );
add_filter( 'woocommerce_payment_gateways', 'hosted_checkout_payment_gateways' );
add_action( 'admin_menu', array( 'Hosted_Checkout_Settings', 'add_page' ) );
add_action( 'admin_init', array( 'Hosted_Checkout_Settings', 'register' ) );
add_action( 'admin_post_hosted_checkout_test_connection', array( 'Hosted_Checkout_Settings', 'test_connection' ) );
// Shop managers open the page (manage_woocommerce): they must be able to save it too (options.php asks manage_options otherwise).
add_filter( 'option_page_capability_' . Hosted_Checkout_Settings::GROUP, array( 'Hosted_Checkout_Settings', 'capability' ) );

// Declare HPOS and block checkout compatibility: only CRUD APIs are used on orders.
add_action(
	'before_woocommerce_init',
	static function () {
		if ( class_exists( '\Automattic\WooCommerce\Utilities\FeaturesUtil' ) ) {
			\Automattic\WooCommerce\Utilities\FeaturesUtil::declare_compatibility( 'custom_order_tables', HOSTED_CHECKOUT_PLUGIN_FILE, true );
			\Automattic\WooCommerce\Utilities\FeaturesUtil::declare_compatibility( 'cart_checkout_blocks', HOSTED_CHECKOUT_PLUGIN_FILE, true );
		}
	}
);

/**
 * Registers our orders' payment method as a gateway (refunds from wp-admin go through it). Its class extends
 * WooCommerce's, so it is loaded here, when WooCommerce asks for its gateways.
 *
 * @param array $gateways Gateway class names or instances.
 * @return array
 */
function hosted_checkout_payment_gateways( $gateways ) {
	if ( ! class_exists( 'WC_Payment_Gateway' ) ) {
		return $gateways;
	}
	require_once __DIR__ . '/includes/class-hosted-checkout-gateway.php';
	$gateways[] = 'Hosted_Checkout_Gateway';
	return $gateways;
}

register_activation_hook( __FILE__, array( 'Hosted_Checkout_Settings', 'create_options' ) );
register_deactivation_hook(
	__FILE__,
	static function () {
		delete_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF );
	}
);
