<?php
/**
 * A hand-written stand-in for the WordPress and WooCommerce functions the plugin calls (no WordPress
 * runtime can be installed here). Each stub keeps its state in $GLOBALS['hc_wp'] so tests can set the
 * scene (options, cart, HTTP answers, orders) and read what the plugin did (redirects, routes).
 *
 * @package HostedCheckoutConnector
 */

define( 'ABSPATH', __DIR__ . '/' );

function hc_wp_reset() {
	$GLOBALS['hc_wp'] = array(
		'options'    => array(),
		'transients' => array(),
		'filters'    => array(),
		'actions'    => array(),
		'is_checkout' => true,
		'endpoint'   => null,
		'is_admin'   => false,
		'cart'       => array(),
		'currency'   => 'EUR',
		'home'       => 'http://shop.example/',
		'keys'       => array(),
		'http'       => null,
		'requests'   => array(),
		'redirects'  => array(),
		'nocache'    => 0,
		'routes'     => array(),
		'caps'       => array( 'read_private_shop_orders', 'manage_woocommerce', 'read_private_products' ),
		// WooCommerce's REST routes as rest_do_request() answers them: route => callable( $query ) returning data or a WP_Error.
		'rest'       => array(),
		// What rest_do_request() was asked: array( route, query ).
		'dispatched' => array(),
		'orders'     => array(),
		// Refunds by id: parent (the order id) and amount (a decimal string, as WC_Order_Refund::get_amount answers it).
		'refunds'    => array(),
		'queries'    => array(),
		// Pages by id: title (as stored), status (publish, draft, private, trash), slug; get_permalink() answers home + slug.
		'pages'      => array(),
		// The shopper's WooCommerce session (null: the request has none), and what the settings page added.
		'session'    => array(),
		'emptied'    => 0,
		'settings_errors' => array(),
		'added_options'   => array(),
	);
	$GLOBALS['wpdb'] = new HC_Test_Wpdb();
}

class WP_Error {
	public $code;
	public $message;
	public $data;
	public function __construct( $code = '', $message = '', $data = '' ) {
		$this->code    = $code;
		$this->message = $message;
		$this->data    = $data;
	}
	public function get_error_message() {
		return $this->message;
	}
	public function get_error_code() {
		return $this->code;
	}
	public function get_error_data() {
		return $this->data;
	}
}

class WP_REST_Request {
	private $params;
	public $method;
	public $route;
	/**
	 * As WordPress: new WP_REST_Request( $method, $route ); or, for the tests, the route's params alone.
	 */
	public function __construct( $method_or_params = array(), $route = '' ) {
		$this->params = is_array( $method_or_params ) ? $method_or_params : array();
		$this->method = is_array( $method_or_params ) ? 'GET' : $method_or_params;
		$this->route  = $route;
	}
	public function get_param( $name ) {
		return $this->params[ $name ] ?? null;
	}
	public function set_query_params( $params ) {
		$this->params = $params;
	}
	public function get_query_params() {
		return $this->params;
	}
}

class WP_REST_Response {
	private $data;
	public function __construct( $data ) {
		$this->data = $data;
	}
	public function is_error() {
		return $this->data instanceof WP_Error;
	}
	public function as_error() {
		return $this->data;
	}
	public function get_data() {
		return $this->data;
	}
}

/** An inner GET of a WooCommerce route: the scripted answer of $GLOBALS['hc_wp']['rest'][ route ], recorded. */
function rest_do_request( $request ) {
	$GLOBALS['hc_wp']['dispatched'][] = array( $request->method . ' ' . $request->route, $request->get_query_params() );
	$answer                           = $GLOBALS['hc_wp']['rest'][ $request->route ] ?? null;
	return new WP_REST_Response( $answer ? $answer( $request->get_query_params() ) : new WP_Error( 'rest_no_route', 'No route was found matching the URL and request method.', array( 'status' => 404 ) ) );
}
function wp_parse_id_list( $list ) {
	return array_values( array_unique( array_map( 'absint', is_array( $list ) ? $list : preg_split( '/[\s,]+/', $list ) ) ) );
}

/** $wpdb as far as the plugin uses it: the woocommerce_api_keys lookup. */
class HC_Test_Wpdb {
	public $prefix = 'wp_';
	public $last_query;
	public function prepare( $query, ...$args ) {
		return array( $query, $args );
	}
	public function get_var( $prepared ) {
		list( $query, $args ) = $prepared;
		$this->last_query      = $query;
		if ( false === strpos( $query, 'wp_woocommerce_api_keys' ) ) {
			return null;
		}
		foreach ( $GLOBALS['hc_wp']['keys'] as $key => $secret ) {
			if ( wc_api_hash( $key ) === $args[0] ) {
				return $secret;
			}
		}
		return null;
	}
}

/** A cart as WC()->cart presents it. */
class HC_Test_Cart {
	public function get_cart() {
		return $GLOBALS['hc_wp']['cart'];
	}
	public function is_empty() {
		return 0 === count( $GLOBALS['hc_wp']['cart'] );
	}
	public function empty_cart() {
		$GLOBALS['hc_wp']['cart'] = array();
		$GLOBALS['hc_wp']['emptied']++;
	}
}

/** WC()->session as far as the plugin uses it (WC_Session::get/set). */
class HC_Test_Session {
	public function get( $key, $default = null ) {
		return $GLOBALS['hc_wp']['session'][ $key ] ?? $default;
	}
	public function set( $key, $value ) {
		$GLOBALS['hc_wp']['session'][ $key ] = $value;
	}
}

/** An order as wc_get_order() presents it (the getters the plugin reads). */
class HC_Test_Order {
	public $data;
	public function __construct( array $data ) {
		$this->data = $data;
	}
	public function get_id() {
		return $this->data['id'];
	}
	public function get_order_number() {
		return (string) $this->data['id'];
	}
	public function get_status() {
		return $this->data['status'];
	}
	public function get_order_key() {
		return 'wc_order_' . $this->data['id'];
	}
	public function get_date_created() {
		return new DateTimeImmutable( '@' . $this->data['created'] );
	}
	public function get_date_paid() {
		return isset( $this->data['paid'] ) ? new DateTimeImmutable( '@' . $this->data['paid'] ) : null;
	}
	public function get_total() {
		return $this->data['total'];
	}
	public function get_currency() {
		return 'EUR';
	}
	public function get_transaction_id() {
		return $this->data['transaction_id'] ?? '';
	}
	public function get_meta( $key ) {
		return $this->data['meta'][ $key ] ?? '';
	}
}

/** A refund as WooCommerce presents it (the getters the gateway reads). */
class HC_Test_Refund {
	public $data;
	public function __construct( array $data ) {
		$this->data = $data;
	}
	public function get_id() {
		return $this->data['id'];
	}
	public function get_amount() {
		return $this->data['amount'];
	}
}

/**
 * WooCommerce's WC_Payment_Gateway as far as a gateway extends it (abstract-wc-payment-gateway.php): the public
 * properties and supports(), which wc_refund_payment and the admin's refund button ask.
 */
abstract class WC_Payment_Gateway {
	public $id;
	public $title;
	public $method_title       = '';
	public $method_description = '';
	public $has_fields;
	public $enabled  = 'no';
	public $supports = array( 'products' );
	public function supports( $feature ) {
		return in_array( $feature, $this->supports, true );
	}
	public function can_refund_order( $order ) {
		return $order && $this->supports( 'refunds' );
	}
	public function is_available() {
		return 'yes' === $this->enabled;
	}
	public function process_refund( $order_id, $amount = null, $reason = '' ) {
		return false;
	}
}

function add_action( $hook, $callback, $priority = 10, $args = 1 ) {
	$GLOBALS['hc_wp']['actions'][ $hook ][]    = $callback;
	$GLOBALS['hc_wp']['priorities'][ $hook ][] = $priority;
	return true;
}
function add_filter( $hook, $callback, $priority = 10, $args = 1 ) {
	$GLOBALS['hc_wp']['filters'][ $hook ][] = $callback;
	return true;
}
function apply_filters( $hook, $value, ...$args ) {
	foreach ( $GLOBALS['hc_wp']['filters'][ $hook ] ?? array() as $callback ) {
		$value = $callback( $value, ...$args );
	}
	return $value;
}
function register_deactivation_hook( $file, $callback ) {
	$GLOBALS['hc_wp']['actions']['deactivate'][] = $callback;
}
function get_option( $name, $default = false ) {
	return $GLOBALS['hc_wp']['options'][ $name ] ?? $default;
}
function update_option( $name, $value, $autoload = null ) {
	$GLOBALS['hc_wp']['options'][ $name ] = $value;
	return true;
}
function delete_option( $name ) {
	unset( $GLOBALS['hc_wp']['options'][ $name ] );
	return true;
}
function get_transient( $name ) {
	return $GLOBALS['hc_wp']['transients'][ $name ] ?? false;
}
function set_transient( $name, $value, $ttl = 0 ) {
	$GLOBALS['hc_wp']['transients'][ $name ]    = $value;
	$GLOBALS['hc_wp']['transient_ttl'][ $name ] = $ttl;
	return true;
}
function delete_transient( $name ) {
	unset( $GLOBALS['hc_wp']['transients'][ $name ] );
	return true;
}
function is_admin() {
	return $GLOBALS['hc_wp']['is_admin'];
}
function wp_doing_ajax() {
	return false;
}
function is_ssl() {
	return false;
}
function is_checkout() {
	return $GLOBALS['hc_wp']['is_checkout'];
}
function is_wc_endpoint_url( $endpoint = false ) {
	return $GLOBALS['hc_wp']['endpoint'] === $endpoint;
}
function WC() { // phpcs:ignore WordPress.NamingConventions.ValidFunctionName
	return (object) array(
		'cart'    => new HC_Test_Cart(),
		'session' => null === $GLOBALS['hc_wp']['session'] ? null : new HC_Test_Session(),
	);
}
function get_woocommerce_currency() {
	return $GLOBALS['hc_wp']['currency'];
}
function determine_locale() {
	return 'de_DE';
}
function home_url( $path = '' ) {
	return $GLOBALS['hc_wp']['home'] . ltrim( $path, '/' );
}
function admin_url( $path = '' ) {
	return 'http://shop.example/wp-admin/' . $path;
}
function untrailingslashit( $value ) {
	return rtrim( $value, '/\\' );
}
function wp_json_encode( $data ) {
	return json_encode( $data );
}
function wp_parse_url( $url, $component = -1 ) {
	return parse_url( $url, $component );
}
function esc_url_raw( $url ) {
	return filter_var( $url, FILTER_VALIDATE_URL ) ? $url : '';
}
function sanitize_text_field( $value ) {
	return trim( preg_replace( '/[\r\n\t]+/', ' ', wp_strip_all_tags_stub( (string) $value ) ) );
}
function wp_strip_all_tags_stub( $value ) {
	return strip_tags( $value );
}
function wc_api_hash( $data ) {
	return hash_hmac( 'sha256', $data, 'wc-api' );
}
function is_wp_error( $thing ) {
	return $thing instanceof WP_Error;
}
/**
 * The HTTP API: a scripted answer from $GLOBALS['hc_wp']['http'] (a callable), or a real request when
 * it is 'real' (the end-to-end test against the running API).
 */
function wp_remote_request( $url, $args ) {
	$GLOBALS['hc_wp']['requests'][] = array( 'url' => $url, 'args' => $args );
	$http = $GLOBALS['hc_wp']['http'];
	if ( 'real' !== $http ) {
		return $http( $url, $args );
	}
	$headers = '';
	foreach ( $args['headers'] ?? array() as $name => $value ) {
		$headers .= $name . ': ' . $value . "\r\n";
	}
	$context = stream_context_create(
		array(
			'http' => array(
				'method'          => $args['method'],
				'header'          => $headers,
				'content'         => $args['body'] ?? '',
				'timeout'         => $args['timeout'] ?? 5,
				'ignore_errors'   => true,
				'follow_location' => 0,
			),
		)
	);
	$body = @file_get_contents( $url, false, $context ); // phpcs:ignore
	if ( false === $body ) {
		return new WP_Error( 'http_request_failed', 'request failed' );
	}
	preg_match( '/^HTTP\/\S+\s+(\d+)/', $http_response_header[0] ?? '', $m );
	return array( 'response' => array( 'code' => (int) ( $m[1] ?? 0 ) ), 'body' => $body );
}
function wp_remote_post( $url, $args = array() ) {
	return wp_remote_request( $url, $args + array( 'method' => 'POST' ) );
}
function wp_remote_get( $url, $args = array() ) {
	return wp_remote_request( $url, $args + array( 'method' => 'GET' ) );
}
function wp_remote_retrieve_response_code( $response ) {
	return is_wp_error( $response ) ? '' : $response['response']['code'];
}
function wp_remote_retrieve_body( $response ) {
	return is_wp_error( $response ) ? '' : $response['body'];
}
function nocache_headers() {
	$GLOBALS['hc_wp']['nocache']++;
}
/** wp_safe_redirect: a host not in allowed_redirect_hosts goes to the admin instead, as WordPress does. */
function wp_safe_redirect( $location, $status = 302 ) {
	$allowed = apply_filters( 'allowed_redirect_hosts', array( parse_url( home_url(), PHP_URL_HOST ) ) );
	$host    = parse_url( $location, PHP_URL_HOST );
	$GLOBALS['hc_wp']['redirects'][] = array( in_array( $host, $allowed, true ) ? $location : admin_url(), $status );
	return true;
}
function register_rest_route( $namespace, $route, $args ) {
	$GLOBALS['hc_wp']['routes'][ $namespace . $route ] = $args;
	return true;
}
function current_user_can( $cap ) {
	return in_array( $cap, $GLOBALS['hc_wp']['caps'], true );
}
function rest_ensure_response( $data ) {
	return $data;
}
/** As WooCommerce 10 answers it: the block checkout adds its draft status (Blocks DraftOrders) to the core ones. */
function wc_get_order_statuses() {
	return array( 'wc-pending' => 'Pending payment', 'wc-processing' => 'Processing', 'wc-on-hold' => 'On hold', 'wc-completed' => 'Completed', 'wc-cancelled' => 'Cancelled', 'wc-refunded' => 'Refunded', 'wc-failed' => 'Failed', 'wc-checkout-draft' => 'Draft' );
}
/** wc_get_orders over the in-memory orders: statuses (wc-…; a trashed order's status is "trash"), the meta_key/meta_value pair, limit, ids. */
function wc_get_orders( $args ) {
	$GLOBALS['hc_wp']['queries'][] = $args;
	if ( 'shop_order_refund' === ( $args['type'] ?? null ) ) {
		// An order's refunds, newest (highest id) first when asked for orderby ID DESC, as objects.
		$refunds = array_values( array_filter( $GLOBALS['hc_wp']['refunds'], static fn( $r ) => $r['parent'] === $args['parent'] ) );
		usort( $refunds, static fn( $a, $b ) => 'DESC' === ( $args['order'] ?? 'DESC' ) ? $b['id'] <=> $a['id'] : $a['id'] <=> $b['id'] );
		$refunds = array_map( static fn( $r ) => new HC_Test_Refund( $r ), $refunds );
		return -1 === $args['limit'] ? $refunds : array_slice( $refunds, 0, $args['limit'] );
	}
	$ids = array();
	foreach ( $GLOBALS['hc_wp']['orders'] as $order ) {
		if ( isset( $args['status'] ) && ! in_array( 'trash' === $order['status'] ? 'trash' : 'wc-' . $order['status'], (array) $args['status'], true ) ) {
			continue;
		}
		if ( isset( $args['meta_key'] ) && ( $order['meta'][ $args['meta_key'] ] ?? null ) !== $args['meta_value'] ) {
			continue;
		}
		$ids[] = $order['id'];
	}
	sort( $ids );
	return array_slice( $ids, 0, $args['limit'] );
}
function wc_get_order( $id ) {
	foreach ( $GLOBALS['hc_wp']['orders'] as $order ) {
		if ( $order['id'] === $id ) {
			return new HC_Test_Order( $order );
		}
	}
	return false;
}
/** As WooCommerce answers it: the woocommerce_<page>_page_id option, -1 when unset. */
function wc_get_page_id( $page ) {
	$id = get_option( 'woocommerce_' . $page . '_page_id' );
	return $id ? absint( $id ) : -1;
}
function wc_terms_and_conditions_page_id() {
	$id = wc_get_page_id( 'terms' );
	return 0 < $id ? absint( $id ) : 0;
}
function absint( $value ) {
	return abs( (int) $value );
}
/** get_post_status: false for a post that does not exist. */
function get_post_status( $id ) {
	return isset( $GLOBALS['hc_wp']['pages'][ $id ] ) ? $GLOBALS['hc_wp']['pages'][ $id ]['status'] : false;
}
/** get_the_title: as the_title's wptexturize leaves it, "&" written as "&#038;". */
function get_the_title( $id ) {
	return isset( $GLOBALS['hc_wp']['pages'][ $id ] ) ? str_replace( '&', '&#038;', $GLOBALS['hc_wp']['pages'][ $id ]['title'] ) : '';
}
function get_permalink( $id ) {
	return isset( $GLOBALS['hc_wp']['pages'][ $id ] ) ? home_url( $GLOBALS['hc_wp']['pages'][ $id ]['slug'] . '/' ) : false;
}
function wp_strip_all_tags( $text ) {
	return trim( strip_tags( $text ) );
}
function wc_format_decimal( $value, $dp ) {
	return number_format( (float) $value, $dp, '.', '' );
}
function wc_get_price_decimals() {
	return 2;
}
function get_current_user_id() {
	return 1;
}
/** Translations: the plugin's own English (no .mo files loaded here). */
function __( $text, $domain = 'default' ) {
	return $text;
}
function esc_html__( $text, $domain = 'default' ) {
	return htmlspecialchars( $text, ENT_QUOTES );
}
function esc_html( $text ) {
	return htmlspecialchars( (string) $text, ENT_QUOTES );
}
function esc_attr( $text ) {
	return htmlspecialchars( (string) $text, ENT_QUOTES );
}
function esc_url( $url ) {
	return $url;
}
function add_settings_error( $setting, $code, $message, $type = 'error' ) {
	$GLOBALS['hc_wp']['settings_errors'][] = array( 'setting' => $setting, 'code' => $code, 'message' => $message, 'type' => $type );
}
function add_option( $name, $value = '', $deprecated = '', $autoload = null ) {
	if ( array_key_exists( $name, $GLOBALS['hc_wp']['options'] ) ) {
		return false;
	}
	$GLOBALS['hc_wp']['options'][ $name ]       = $value;
	$GLOBALS['hc_wp']['added_options'][ $name ] = $autoload;
	return true;
}
function register_activation_hook( $file, $callback ) {
	$GLOBALS['hc_wp']['actions']['activate'][] = $callback;
}
function register_setting( $group, $name, $args = array() ) {
	$GLOBALS['hc_wp']['settings'][ $name ] = $args;
}
function check_admin_referer( $action, $name = '_wpnonce' ) {
	return 1;
}
/** The Settings API's markup as WordPress prints it (ids from names, as wp_nonce_field and submit_button make them). */
function wp_nonce_field( $action = -1, $name = '_wpnonce', $referer = true, $display = true ) {
	$field = '<input type="hidden" id="' . $name . '" name="' . $name . '" value="nonce-' . $action . '" />' . ( $referer ? '<input type="hidden" name="_wp_http_referer" value="/wp-admin/" />' : '' );
	if ( $display ) {
		echo $field; // phpcs:ignore
	}
	return $field;
}
function settings_fields( $group ) {
	echo "<input type='hidden' name='option_page' value='" . $group . "' /><input type=\"hidden\" name=\"action\" value=\"update\" />"; // phpcs:ignore
	wp_nonce_field( "$group-options" );
}
function submit_button( $text = null, $type = 'primary', $name = 'submit', $wrap = true, $other = null ) {
	echo '<p class="submit"><input type="submit" name="' . $name . '" id="' . $name . '" class="button button-' . $type . '" value="' . ( $text ?? 'Save Changes' ) . '" /></p>'; // phpcs:ignore
}
function settings_errors( $setting = '', $sanitize = false, $hide_on_update = false ) {
	foreach ( $GLOBALS['hc_wp']['settings_errors'] as $error ) {
		echo '<div id="setting-error-' . $error['code'] . '" class="notice notice-' . $error['type'] . '"><p><strong>' . $error['message'] . '</strong></p></div>'; // phpcs:ignore
	}
}
function wp_die( $message = '', $title = '', $args = array() ) {
	throw new RuntimeException( 'wp_die: ' . $message );
}

hc_wp_reset();
require dirname( __DIR__ ) . '/hosted-checkout-connector/hosted-checkout-connector.php';
// What the plugin hooked at load time, kept across the per-test resets.
$GLOBALS['hc_wp_boot_actions']    = $GLOBALS['hc_wp']['actions'];
$GLOBALS['hc_wp_boot_priorities'] = $GLOBALS['hc_wp']['priorities'];
$GLOBALS['hc_wp_boot_filters']    = $GLOBALS['hc_wp']['filters'];
