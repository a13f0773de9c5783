<?php
/**
 * Signing of the handoff: HMAC-SHA256 with the secret of the REST key the store is connected with.
 *
 * @package HostedCheckoutConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * The service holds the same consumer secret (it was given the key pair at connection), so a valid
 * signature proves the handoff comes from this store.
 */
class Hosted_Checkout_Signature {

	/**
	 * The consumer secret of a WooCommerce REST key, from woocommerce_api_keys (keys are stored as
	 * wc_api_hash( key ), secrets in clear), or null when the key is not one of this store's.
	 *
	 * @param string $consumer_key The connection key from the settings (ck_…).
	 * @return string|null
	 */
	public static function secret_for( $consumer_key ) {
		global $wpdb;
		if ( ! is_string( $consumer_key ) || '' === $consumer_key || ! function_exists( 'wc_api_hash' ) ) {
			return null;
		}
		// WooCommerce has no API that answers a key's secret: this is the query its own REST authentication runs
		// (get_user_data_by_consumer_key). Not cached on purpose: a revoked key must stop signing at once.
		$secret = $wpdb->get_var( // phpcs:ignore WordPress.DB.DirectDatabaseQuery.DirectQuery, WordPress.DB.DirectDatabaseQuery.NoCaching
			$wpdb->prepare(
				"SELECT consumer_secret FROM {$wpdb->prefix}woocommerce_api_keys WHERE consumer_key = %s",
				wc_api_hash( sanitize_text_field( $consumer_key ) )
			)
		);
		return is_string( $secret ) && '' !== $secret ? $secret : null;
	}

	/**
	 * The signature header value for a body sent at $timestamp.
	 *
	 * @param string $secret    Consumer secret.
	 * @param int    $timestamp Unix seconds.
	 * @param string $body      The exact bytes sent.
	 * @return string
	 */
	public static function sign( $secret, $timestamp, $body ) {
		return 'v1=' . hash_hmac( 'sha256', $timestamp . '.' . $body, $secret );
	}

	/**
	 * Headers that sign $body, or null when the connection key is not a key of this store.
	 *
	 * @param string $consumer_key Connection key.
	 * @param string $body         JSON body.
	 * @return array|null
	 */
	public static function headers( $consumer_key, $body ) {
		$secret = self::secret_for( $consumer_key );
		if ( null === $secret ) {
			return null;
		}
		$timestamp = time();
		return array(
			'Content-Type'                => 'application/json',
			'Accept'                      => 'application/json',
			'X-Hosted-Checkout-Key'       => $consumer_key,
			'X-Hosted-Checkout-Timestamp' => (string) $timestamp,
			'X-Hosted-Checkout-Signature' => self::sign( $secret, $timestamp, $body ),
		);
	}
}
