<?php
/**
 * The checkout interception: on the checkout page, hand the cart to the hosted checkout and redirect.
 *
 * @package HostedCheckoutConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Runs on template_redirect (after the query is parsed, before any output). Whatever goes wrong (not
 * configured, service down or slow, passthrough, an answer we cannot use) the function returns and
 * WooCommerce renders its native checkout: the plugin must never block a sale.
 */
class Hosted_Checkout_Handoff {

	/**
	 * Redirects the shopper to the hosted checkout when this request is the checkout page.
	 *
	 * @return void
	 */
	public static function maybe_intercept() {
		if ( ! self::is_interceptable() ) {
			return;
		}
		$result = self::handoff();
		if ( 'redirected' !== $result['outcome'] ) {
			return;
		}
		if ( isset( $result['token'] ) ) {
			Hosted_Checkout_Cart::remember( $result['token'] );
		}
		$host = wp_parse_url( $result['url'], PHP_URL_HOST );
		add_filter(
			'allowed_redirect_hosts',
			static function ( $hosts ) use ( $host ) {
				$hosts[] = $host;
				return $hosts;
			}
		);
		nocache_headers();
		wp_safe_redirect( $result['url'], 303 );
		if ( apply_filters( 'hosted_checkout_exit_after_redirect', true ) ) {
			exit;
		}
	}

	/**
	 * The checkout page itself, with a cart, not its order-received / order-pay endpoints (they live on the
	 * checkout page too), not admin, AJAX or REST, and the service not in a back-off after failures.
	 *
	 * @return bool
	 */
	public static function is_interceptable() {
		if ( is_admin() || wp_doing_ajax() || ( defined( 'REST_REQUEST' ) && REST_REQUEST ) ) {
			return false;
		}
		if ( ! function_exists( 'is_checkout' ) || ! is_checkout() ) {
			return false;
		}
		if ( is_wc_endpoint_url( 'order-received' ) || is_wc_endpoint_url( 'order-pay' ) ) {
			return false;
		}
		$cart = function_exists( 'WC' ) && WC() ? WC()->cart : null;
		if ( ! $cart || $cart->is_empty() ) {
			return false;
		}
		return ! get_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF );
	}

	/**
	 * What the service is told: store, ids and quantities (no prices: the service reads them over REST).
	 *
	 * @return array
	 */
	public static function payload() {
		$items = array();
		foreach ( WC()->cart->get_cart() as $item ) {
			$line = array(
				'productId' => (int) $item['product_id'],
				'quantity'  => (int) $item['quantity'],
			);
			if ( ! empty( $item['variation_id'] ) ) {
				$line['variationId'] = (int) $item['variation_id'];
			}
			$items[] = $line;
		}
		return array(
			'platform'  => 'storefront-b',
			'storeUrl'  => untrailingslashit( home_url() ),
			'cart'      => array(
				'items'    => $items,
				'currency' => get_woocommerce_currency(),
			),
			'locale'    => determine_locale(),
			// Random per handoff and signed with the body: the service accepts each signed handoff once, and a copy of
			// it (a retry, a replay) is sent to the first checkout instead of making another.
			'handoffId' => bin2hex( random_bytes( 16 ) ),
		);
	}

	/**
	 * Hands the cart over. Answers outcome redirected (with url, and the session token when the answer has one),
	 * passthrough, or error (with error).
	 *
	 * @return array
	 */
	public static function handoff() {
		$service = untrailingslashit( (string) get_option( HOSTED_CHECKOUT_OPTION_SERVICE_URL, '' ) );
		$key     = (string) get_option( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY, '' );
		if ( '' === $service || '' === $key ) {
			return self::error( 'not configured: set the service URL and the connection key' );
		}
		$body    = wp_json_encode( self::payload() );
		$headers = Hosted_Checkout_Signature::headers( $key, $body );
		if ( null === $headers ) {
			return self::error( 'the connection key is not a REST API key of this store' );
		}
		$response = wp_remote_post(
			$service . '/api/checkout/create',
			array(
				'timeout'     => HOSTED_CHECKOUT_HANDOFF_TIMEOUT,
				'redirection' => 0,
				'headers'     => $headers,
				'body'        => $body,
				'data_format' => 'body',
			)
		);
		if ( is_wp_error( $response ) ) {
			return self::error( 'the service did not answer: ' . $response->get_error_message(), HOSTED_CHECKOUT_BACKOFF_OUTAGE );
		}
		$status = (int) wp_remote_retrieve_response_code( $response );
		$answer = json_decode( (string) wp_remote_retrieve_body( $response ), true );
		if ( $status >= 500 ) {
			return self::error( 'the service failed (' . $status . ')', HOSTED_CHECKOUT_BACKOFF_OUTAGE );
		}
		// "No connected store matches this checkout request": every checkout would pay the round trip for nothing.
		if ( 404 === $status ) {
			return self::error( 'the service does not know this store (connect it in the checkout dashboard)', HOSTED_CHECKOUT_BACKOFF_NOT_CONNECTED );
		}
		if ( 200 === $status && is_array( $answer ) && true === ( $answer['passthrough'] ?? null ) ) {
			return array( 'outcome' => 'passthrough' );
		}
		if ( ( 200 === $status || 201 === $status ) && is_array( $answer ) && self::usable_url( $answer['checkoutUrl'] ?? null, $service ) ) {
			return self::redirected( $answer['checkoutUrl'], $answer['token'] ?? null );
		}
		// This very handoff (same signature) was already received, e.g. a double click: the service made one checkout
		// and names it, so the shopper goes there instead of to a second one.
		$first = is_array( $answer ) && 'HANDOFF_REPLAYED' === ( $answer['code'] ?? null ) && is_array( $answer['details'] ?? null ) ? $answer['details'] : null;
		if ( 409 === $status && null !== $first && self::usable_url( $first['checkoutUrl'] ?? null, $service ) ) {
			return self::redirected( $first['checkoutUrl'], $first['token'] ?? null );
		}
		return self::error( 'the service answered ' . $status );
	}

	/**
	 * A redirected outcome; the token is kept only when it looks like one of ours.
	 *
	 * @param string $url   Checkout URL (already checked with usable_url).
	 * @param mixed  $token Session token from the answer.
	 * @return array
	 */
	private static function redirected( $url, $token ) {
		return array_merge(
			array(
				'outcome' => 'redirected',
				'url'     => $url,
			),
			is_string( $token ) && Hosted_Checkout_Cart::is_token( $token ) ? array( 'token' => $token ) : array()
		);
	}

	/**
	 * A checkout URL we may send a shopper to: https, or http when the service itself is http (local runs).
	 *
	 * @param mixed  $url     Candidate.
	 * @param string $service Service URL.
	 * @return bool
	 */
	public static function usable_url( $url, $service ) {
		if ( ! is_string( $url ) || '' === $url ) {
			return false;
		}
		$scheme = wp_parse_url( $url, PHP_URL_SCHEME );
		$host   = wp_parse_url( $url, PHP_URL_HOST );
		if ( ! is_string( $host ) || '' === $host ) {
			return false;
		}
		return 'https' === $scheme || ( 'http' === $scheme && 'http' === wp_parse_url( $service, PHP_URL_SCHEME ) );
	}

	/**
	 * An error outcome. A service that fails, or does not know this store, is left alone for a while ($backoff
	 * seconds) so checkouts are not slowed by it; saving the settings or testing the connection ends the pause.
	 *
	 * @param string $message What went wrong.
	 * @param int    $backoff Seconds to pause handoffs (0: none).
	 * @return array
	 */
	private static function error( $message, $backoff = 0 ) {
		if ( $backoff > 0 ) {
			set_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF, 1, $backoff );
		}
		return array(
			'outcome' => 'error',
			'error'   => $message,
		);
	}
}
