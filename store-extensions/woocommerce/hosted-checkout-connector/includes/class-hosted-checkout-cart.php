<?php
/**
 * The store cart after a hosted checkout: emptied once that checkout is paid.
 *
 * @package HostedCheckoutConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * The shopper pays on the hosted checkout, so WooCommerce never sees its own checkout complete and keeps the cart.
 * At the handoff the checkout session token is remembered in the shopper's WooCommerce session; on a later page of
 * the shop, while one is remembered, the service is asked (GET /api/checkout/session/<token>, public) whether that
 * checkout was paid — at most once every few seconds per shopper, with a short time-out, failures ignored — and a
 * paid one empties the cart and is forgotten. Paid: card payment completed, cash on delivery confirmed, refunded
 * later, or held (the money arrived, the store order waits for a check).
 */
class Hosted_Checkout_Cart {

	/** WooCommerce session keys. */
	const TOKEN      = 'hosted_checkout_token';
	const CHECKED_AT = 'hosted_checkout_checked_at';

	/** Session statuses that mean the shopper paid (or chose cash on delivery): the cart was bought. */
	const PAID = array( 'COMPLETED', 'COD_CONFIRMED', 'REFUNDED', 'ON_HOLD' );

	/**
	 * A checkout session token as the service issues them.
	 *
	 * @param string $token Candidate.
	 * @return bool
	 */
	public static function is_token( $token ) {
		return 1 === preg_match( '/^cs_[A-Za-z0-9_-]{8,128}$/', $token );
	}

	/**
	 * The shopper's WooCommerce session, when this request has one.
	 *
	 * @return WC_Session|null
	 */
	private static function session() {
		$wc = function_exists( 'WC' ) ? WC() : null;
		return $wc && isset( $wc->session ) && $wc->session ? $wc->session : null;
	}

	/**
	 * Remembers the checkout the cart was handed to (the first question comes with the next page).
	 *
	 * @param string $token Session token.
	 * @return void
	 */
	public static function remember( $token ) {
		$session = self::session();
		if ( $session && self::is_token( $token ) ) {
			$session->set( self::TOKEN, $token );
			$session->set( self::CHECKED_AT, 0 );
		}
	}

	/**
	 * Forgets the remembered checkout.
	 *
	 * @return void
	 */
	private static function forget() {
		$session = self::session();
		if ( $session ) {
			$session->set( self::TOKEN, null );
			$session->set( self::CHECKED_AT, null );
		}
	}

	/**
	 * On template_redirect (shop pages only): empties the cart once the remembered checkout is paid.
	 *
	 * @return void
	 */
	public static function maybe_empty_paid_cart() {
		if ( is_admin() || wp_doing_ajax() || ( defined( 'REST_REQUEST' ) && REST_REQUEST ) ) {
			return;
		}
		$session = self::session();
		$token   = $session ? $session->get( self::TOKEN ) : null;
		if ( ! is_string( $token ) || ! self::is_token( $token ) ) {
			return;
		}
		$now = time();
		if ( $now - (int) $session->get( self::CHECKED_AT ) < HOSTED_CHECKOUT_PAID_CHECK_INTERVAL ) {
			return;
		}
		$session->set( self::CHECKED_AT, $now );
		$service = untrailingslashit( (string) get_option( HOSTED_CHECKOUT_OPTION_SERVICE_URL, '' ) );
		if ( '' === $service ) {
			return;
		}
		$response = wp_remote_get(
			$service . '/api/checkout/session/' . rawurlencode( $token ),
			array(
				'timeout'     => HOSTED_CHECKOUT_PAID_CHECK_TIMEOUT,
				'redirection' => 0,
				'headers'     => array( 'Accept' => 'application/json' ),
			)
		);
		if ( is_wp_error( $response ) ) {
			return;
		}
		$status = (int) wp_remote_retrieve_response_code( $response );
		if ( 404 === $status ) {
			// The service has no such checkout (any more): nothing to wait for.
			self::forget();
			return;
		}
		$answer = json_decode( (string) wp_remote_retrieve_body( $response ), true );
		if ( 200 !== $status || ! is_array( $answer ) || ! isset( $answer['status'] ) ) {
			return;
		}
		if ( in_array( $answer['status'], self::PAID, true ) ) {
			$wc = WC();
			if ( isset( $wc->cart ) && $wc->cart ) {
				$wc->cart->empty_cart();
			}
			self::forget();
		} elseif ( 'ABANDONED' === $answer['status'] ) {
			// Never paid, and it will not be: the cart stays for the shopper.
			self::forget();
		}
	}
}
