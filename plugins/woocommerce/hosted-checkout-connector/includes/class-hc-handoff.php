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
class HC_Handoff {

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
		return ! get_transient( HC_TRANSIENT_BACKOFF );
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
			'platform' => 'storefront-b',
			'storeUrl' => untrailingslashit( home_url() ),
			'cart'     => array(
				'items'    => $items,
				'currency' => get_woocommerce_currency(),
			),
			'locale'   => determine_locale(),
		);
	}

	/**
	 * Hands the cart over. Answers outcome redirected (with url), passthrough, or error (with error).
	 *
	 * @return array
	 */
	public static function handoff() {
		$service = untrailingslashit( (string) get_option( HC_OPTION_SERVICE_URL, '' ) );
		$key     = (string) get_option( HC_OPTION_CONNECTION_KEY, '' );
		if ( '' === $service || '' === $key ) {
			return self::error( 'not configured: set the service URL and the connection key' );
		}
		$body    = wp_json_encode( self::payload() );
		$headers = HC_Signature::headers( $key, $body );
		if ( null === $headers ) {
			return self::error( 'the connection key is not a REST API key of this store' );
		}
		$response = wp_remote_post(
			$service . '/api/checkout/create',
			array(
				'timeout'     => HC_HANDOFF_TIMEOUT,
				'redirection' => 0,
				'headers'     => $headers,
				'body'        => $body,
				'data_format' => 'body',
			)
		);
		if ( is_wp_error( $response ) ) {
			return self::error( 'the service did not answer: ' . $response->get_error_message(), true );
		}
		$status = (int) wp_remote_retrieve_response_code( $response );
		$answer = json_decode( (string) wp_remote_retrieve_body( $response ), true );
		if ( $status >= 500 ) {
			return self::error( 'the service failed (' . $status . ')', true );
		}
		if ( 200 === $status && is_array( $answer ) && true === ( $answer['passthrough'] ?? null ) ) {
			return array( 'outcome' => 'passthrough' );
		}
		if ( ( 200 === $status || 201 === $status ) && is_array( $answer ) && self::usable_url( $answer['checkoutUrl'] ?? null, $service ) ) {
			return array(
				'outcome' => 'redirected',
				'url'     => $answer['checkoutUrl'],
			);
		}
		return self::error( 'the service answered ' . $status );
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
	 * An error outcome; a failing service is left alone for a minute so checkouts are not slowed by it.
	 *
	 * @param string $message What went wrong.
	 * @param bool   $backoff Whether to pause handoffs.
	 * @return array
	 */
	private static function error( $message, $backoff = false ) {
		if ( $backoff ) {
			set_transient( HC_TRANSIENT_BACKOFF, 1, 60 );
		}
		return array(
			'outcome' => 'error',
			'error'   => $message,
		);
	}
}
