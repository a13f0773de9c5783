<?php
/**
 * Settings page: service URL, connection key, and a connection test.
 *
 * @package HostedCheckoutConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * WooCommerce → Hosted Checkout. The connection key is the REST API consumer key (ck_…) the store is
 * connected with in the checkout dashboard; its secret (read from the store's own key table) signs every
 * handoff, so it is never typed here.
 */
class HC_Settings {

	const PAGE  = 'hosted-checkout';
	const GROUP = 'hosted_checkout';

	/** Adds the page under WooCommerce. */
	public static function add_page() {
		add_submenu_page( 'woocommerce', 'Hosted Checkout', 'Hosted Checkout', 'manage_woocommerce', self::PAGE, array( __CLASS__, 'render' ) );
	}

	/** Registers the two options (not autoloaded: only checkout requests read them). */
	public static function register() {
		register_setting( self::GROUP, HC_OPTION_SERVICE_URL, array( 'type' => 'string', 'sanitize_callback' => array( __CLASS__, 'sanitize_service_url' ), 'default' => '' ) );
		register_setting( self::GROUP, HC_OPTION_CONNECTION_KEY, array( 'type' => 'string', 'sanitize_callback' => array( __CLASS__, 'sanitize_key' ), 'default' => '' ) );
	}

	/**
	 * An http(s) URL without a trailing slash; anything else is refused (empty).
	 *
	 * @param mixed $value Input.
	 * @return string
	 */
	public static function sanitize_service_url( $value ) {
		$url    = esc_url_raw( trim( (string) $value ) );
		$scheme = wp_parse_url( $url, PHP_URL_SCHEME );
		return in_array( $scheme, array( 'http', 'https' ), true ) && wp_parse_url( $url, PHP_URL_HOST ) ? untrailingslashit( $url ) : '';
	}

	/**
	 * A consumer key (ck_ and letters/digits), else empty.
	 *
	 * @param mixed $value Input.
	 * @return string
	 */
	public static function sanitize_key( $value ) {
		$key = sanitize_text_field( (string) $value );
		return preg_match( '/^ck_[A-Za-z0-9]{8,64}$/', $key ) ? $key : '';
	}

	/**
	 * Whether the settings can work: the service answers and the key is one of this store's REST keys.
	 *
	 * @return array{ok: bool, message: string}
	 */
	public static function check() {
		$service = (string) get_option( HC_OPTION_SERVICE_URL, '' );
		if ( '' === $service ) {
			return array( 'ok' => false, 'message' => 'Set the service URL first.' );
		}
		if ( null === HC_Signature::secret_for( (string) get_option( HC_OPTION_CONNECTION_KEY, '' ) ) ) {
			return array( 'ok' => false, 'message' => 'The connection key is not a REST API key of this store (WooCommerce → Settings → Advanced → REST API).' );
		}
		$response = wp_remote_get( untrailingslashit( $service ) . '/health', array( 'timeout' => 5, 'redirection' => 0 ) );
		if ( is_wp_error( $response ) ) {
			return array( 'ok' => false, 'message' => 'The service did not answer: ' . $response->get_error_message() );
		}
		$status = (int) wp_remote_retrieve_response_code( $response );
		if ( 200 !== $status ) {
			return array( 'ok' => false, 'message' => 'The service answered ' . $status . '.' );
		}
		return array( 'ok' => true, 'message' => 'Connected. The first checkout through this store completes the setup verification in your dashboard.' );
	}

	/** The "Test connection" button (admin-post.php?action=hc_test_connection). */
	public static function test_connection() {
		check_admin_referer( 'hc_test_connection' );
		if ( ! current_user_can( 'manage_woocommerce' ) ) {
			wp_die( 'Not allowed.', 403 );
		}
		$result = self::check();
		set_transient( 'hc_test_result_' . get_current_user_id(), $result, 60 );
		wp_safe_redirect( admin_url( 'admin.php?page=' . self::PAGE ) );
		if ( apply_filters( 'hosted_checkout_exit_after_redirect', true ) ) {
			exit;
		}
	}

	/** The page. */
	public static function render() {
		if ( ! current_user_can( 'manage_woocommerce' ) ) {
			return;
		}
		$result = get_transient( 'hc_test_result_' . get_current_user_id() );
		delete_transient( 'hc_test_result_' . get_current_user_id() );
		echo '<div class="wrap"><h1>Hosted Checkout</h1>';
		if ( is_array( $result ) ) {
			printf( '<div class="notice notice-%s"><p>%s</p></div>', $result['ok'] ? 'success' : 'error', esc_html( $result['message'] ) );
		}
		if ( ! is_ssl() ) {
			echo '<p>' . esc_html( 'WordPress does not see this request as HTTPS. If the store is served over HTTPS through a proxy, WooCommerce will not read Basic authentication: set $_SERVER[\'HTTPS\'] = \'on\' in wp-config.php when X-Forwarded-Proto is https.' ) . '</p>';
		}
		echo '<form method="post" action="' . esc_url( admin_url( 'options.php' ) ) . '">';
		settings_fields( self::GROUP );
		echo '<table class="form-table"><tr><th><label for="hc-service">Service URL</label></th><td><input id="hc-service" class="regular-text" type="url" name="' . esc_attr( HC_OPTION_SERVICE_URL ) . '" value="' . esc_attr( (string) get_option( HC_OPTION_SERVICE_URL, '' ) ) . '"></td></tr>';
		echo '<tr><th><label for="hc-key">Connection key</label></th><td><input id="hc-key" class="regular-text" type="text" name="' . esc_attr( HC_OPTION_CONNECTION_KEY ) . '" value="' . esc_attr( (string) get_option( HC_OPTION_CONNECTION_KEY, '' ) ) . '"><p class="description">The REST API consumer key (ck_…) you connected in the checkout dashboard.</p></td></tr></table>';
		submit_button();
		echo '</form><form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '"><input type="hidden" name="action" value="hc_test_connection">';
		wp_nonce_field( 'hc_test_connection' );
		submit_button( 'Test connection', 'secondary' );
		echo '</form></div>';
	}
}
