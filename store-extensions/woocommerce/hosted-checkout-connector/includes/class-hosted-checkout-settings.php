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
 * handoff, so it is never typed here. A value that cannot work is refused with a notice that says why, and
 * the previous value stays: a silently emptied setting would send every checkout to the native one unseen.
 */
class Hosted_Checkout_Settings {

	const PAGE  = 'hosted-checkout';
	const GROUP = 'hosted_checkout';

	/** Adds the page under WooCommerce. */
	public static function add_page() {
		add_submenu_page(
			'woocommerce',
			__( 'Hosted Checkout', 'hosted-checkout-connector' ),
			__( 'Hosted Checkout', 'hosted-checkout-connector' ),
			'manage_woocommerce',
			self::PAGE,
			array( __CLASS__, 'render' )
		);
	}

	/**
	 * Who may save the settings (options.php asks manage_options unless told): whoever may open the page.
	 *
	 * @return string
	 */
	public static function capability() {
		return 'manage_woocommerce';
	}

	/**
	 * The options exist, not autoloaded, before anything saves them: options.php would otherwise add them
	 * autoloaded (and run the sanitize callbacks twice). Runs at activation and before the settings page.
	 *
	 * @return void
	 */
	public static function create_options() {
		foreach ( array( HOSTED_CHECKOUT_OPTION_SERVICE_URL, HOSTED_CHECKOUT_OPTION_CONNECTION_KEY ) as $name ) {
			if ( false === get_option( $name ) ) {
				add_option( $name, '', '', false );
			}
		}
	}

	/**
	 * Registers the two options. No registered default: WordPress takes a stored value equal to the default for a
	 * missing option and re-adds it on save, autoloaded.
	 */
	public static function register() {
		self::create_options();
		register_setting(
			self::GROUP,
			HOSTED_CHECKOUT_OPTION_SERVICE_URL,
			array(
				'type'              => 'string',
				'sanitize_callback' => array( __CLASS__, 'sanitize_service_url' ),
			)
		);
		register_setting(
			self::GROUP,
			HOSTED_CHECKOUT_OPTION_CONNECTION_KEY,
			array(
				'type'              => 'string',
				'sanitize_callback' => array( __CLASS__, 'sanitize_key' ),
			)
		);
		// New settings are tried at the next checkout, not after a back-off the old ones earned.
		add_action( 'update_option_' . HOSTED_CHECKOUT_OPTION_SERVICE_URL, array( __CLASS__, 'end_backoff' ) );
		add_action( 'update_option_' . HOSTED_CHECKOUT_OPTION_CONNECTION_KEY, array( __CLASS__, 'end_backoff' ) );
	}

	/** Ends a back-off (the service may know the store now). */
	public static function end_backoff() {
		delete_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF );
	}

	/**
	 * The service URL: https (http only for a service on this machine, for local testing), a host, no query or
	 * fragment, no trailing slash. Anything else is refused with a notice and the saved value stays.
	 *
	 * @param mixed $value Input.
	 * @return string
	 */
	public static function sanitize_service_url( $value ) {
		$input = trim( (string) $value );
		if ( '' === $input ) {
			return '';
		}
		$url    = esc_url_raw( $input, array( 'http', 'https' ) );
		$scheme = strtolower( (string) wp_parse_url( $input, PHP_URL_SCHEME ) );
		$host   = (string) wp_parse_url( $url, PHP_URL_HOST );
		$local  = in_array( $host, array( 'localhost', '127.0.0.1', '[::1]' ), true );
		if ( '' === $url || '' === $host || ! in_array( $scheme, array( 'http', 'https' ), true ) || wp_parse_url( $url, PHP_URL_QUERY ) || wp_parse_url( $url, PHP_URL_FRAGMENT ) ) {
			return self::refuse(
				HOSTED_CHECKOUT_OPTION_SERVICE_URL,
				/* translators: %s: the value the merchant entered. */
				sprintf( __( 'The service URL "%s" was not saved: enter the full address of your hosted checkout, starting with https:// (for example https://checkout.example.com).', 'hosted-checkout-connector' ), esc_html( $input ) )
			);
		}
		if ( 'https' !== $scheme && ! $local ) {
			return self::refuse(
				HOSTED_CHECKOUT_OPTION_SERVICE_URL,
				/* translators: %s: the value the merchant entered. */
				sprintf( __( 'The service URL "%s" was not saved: it must start with https:// (http is accepted only for a service on this machine).', 'hosted-checkout-connector' ), esc_html( $input ) )
			);
		}
		return untrailingslashit( $url );
	}

	/**
	 * The connection key: the consumer key (ck_…) of one of this store's REST API keys. Anything else is refused
	 * with a notice and the saved value stays.
	 *
	 * @param mixed $value Input.
	 * @return string
	 */
	public static function sanitize_key( $value ) {
		$key = sanitize_text_field( (string) $value );
		if ( '' === $key ) {
			return '';
		}
		if ( ! preg_match( '/^ck_[A-Za-z0-9]{8,64}$/', $key ) ) {
			return self::refuse( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY, __( 'The connection key was not saved: paste the Consumer key (it starts with ck_) of the REST API key you connected in the checkout dashboard, not its secret.', 'hosted-checkout-connector' ) );
		}
		if ( null === Hosted_Checkout_Signature::secret_for( $key ) ) {
			return self::refuse( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY, __( 'The connection key was not saved: it is not a REST API key of this store (WooCommerce → Settings → Advanced → REST API).', 'hosted-checkout-connector' ) );
		}
		return $key;
	}

	/**
	 * A refused value: the notice (printed as HTML by settings_errors(): anything the merchant typed in it is
	 * escaped by the caller), and the value saved before (update_option then changes nothing).
	 *
	 * @param string $option  Option name.
	 * @param string $message What to tell the merchant.
	 * @return string
	 */
	private static function refuse( $option, $message ) {
		add_settings_error( $option, $option . '_invalid', $message, 'error' );
		return (string) get_option( $option, '' );
	}

	/**
	 * Whether the settings can work: the service answers and the key is one of this store's REST keys.
	 *
	 * @return array{ok: bool, message: string}
	 */
	public static function check() {
		$service = (string) get_option( HOSTED_CHECKOUT_OPTION_SERVICE_URL, '' );
		if ( '' === $service ) {
			return array(
				'ok'      => false,
				'message' => __( 'Set the service URL first.', 'hosted-checkout-connector' ),
			);
		}
		if ( null === Hosted_Checkout_Signature::secret_for( (string) get_option( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY, '' ) ) ) {
			return array(
				'ok'      => false,
				'message' => __( 'The connection key is not a REST API key of this store (WooCommerce → Settings → Advanced → REST API).', 'hosted-checkout-connector' ),
			);
		}
		$response = wp_remote_get(
			untrailingslashit( $service ) . '/health',
			array(
				'timeout'     => 5,
				'redirection' => 0,
			)
		);
		if ( is_wp_error( $response ) ) {
			return array(
				'ok'      => false,
				/* translators: %s: the HTTP error. */
				'message' => sprintf( __( 'The service did not answer: %s', 'hosted-checkout-connector' ), $response->get_error_message() ),
			);
		}
		$status = (int) wp_remote_retrieve_response_code( $response );
		if ( 200 !== $status ) {
			return array(
				'ok'      => false,
				/* translators: %d: HTTP status code. */
				'message' => sprintf( __( 'The service answered %d.', 'hosted-checkout-connector' ), $status ),
			);
		}
		return array(
			'ok'      => true,
			'message' => __( 'Connected. The first checkout through this store completes the setup verification in your dashboard.', 'hosted-checkout-connector' ),
		);
	}

	/** The "Test connection" button (admin-post.php?action=hosted_checkout_test_connection). */
	public static function test_connection() {
		check_admin_referer( 'hosted_checkout_test_connection', 'hosted_checkout_test_nonce' );
		if ( ! current_user_can( 'manage_woocommerce' ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to test this connection.', 'hosted-checkout-connector' ), 403 );
		}
		self::end_backoff();
		$result = self::check();
		set_transient( 'hosted_checkout_test_result_' . get_current_user_id(), $result, 60 );
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
		$result = get_transient( 'hosted_checkout_test_result_' . get_current_user_id() );
		delete_transient( 'hosted_checkout_test_result_' . get_current_user_id() );
		echo '<div class="wrap hc-settings"><h1>' . esc_html__( 'Hosted Checkout', 'hosted-checkout-connector' ) . '</h1>';
		// Pages outside Settings do not print the Settings API's notices by themselves: "Settings saved." and every refusal.
		settings_errors();
		if ( is_array( $result ) ) {
			printf( '<div class="notice notice-%s"><p>%s</p></div>', $result['ok'] ? 'success' : 'error', esc_html( $result['message'] ) );
		}
		if ( ! is_ssl() ) {
			echo '<p>' . esc_html__( 'WordPress does not see this request as HTTPS. If the store is served over HTTPS through a proxy, WooCommerce will not read Basic authentication: set $_SERVER[\'HTTPS\'] = \'on\' in wp-config.php when X-Forwarded-Proto is https.', 'hosted-checkout-connector' ) . '</p>';
		}
		echo '<form method="post" action="' . esc_url( admin_url( 'options.php' ) ) . '">';
		settings_fields( self::GROUP );
		echo '<table class="form-table"><tr><th><label for="hc-service">' . esc_html__( 'Service URL', 'hosted-checkout-connector' ) . '</label></th>';
		echo '<td><input id="hc-service" class="regular-text" type="url" name="' . esc_attr( HOSTED_CHECKOUT_OPTION_SERVICE_URL ) . '" value="' . esc_attr( (string) get_option( HOSTED_CHECKOUT_OPTION_SERVICE_URL, '' ) ) . '" placeholder="https://checkout.example.com"></td></tr>';
		echo '<tr><th><label for="hc-key">' . esc_html__( 'Connection key', 'hosted-checkout-connector' ) . '</label></th>';
		echo '<td><input id="hc-key" class="regular-text" type="text" name="' . esc_attr( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY ) . '" value="' . esc_attr( (string) get_option( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY, '' ) ) . '">';
		echo '<p class="description">' . esc_html__( 'The REST API consumer key (ck_…) you connected in the checkout dashboard.', 'hosted-checkout-connector' ) . '</p></td></tr></table>';
		submit_button();
		echo '</form><form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '"><input type="hidden" name="action" value="hosted_checkout_test_connection">';
		// Names of their own: the settings form above already has the ids _wpnonce and submit.
		wp_nonce_field( 'hosted_checkout_test_connection', 'hosted_checkout_test_nonce' );
		submit_button( __( 'Test connection', 'hosted-checkout-connector' ), 'secondary', 'hc-test-connection' );
		echo '</form></div>';
	}
}
