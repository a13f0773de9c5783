<?php
/**
 * The payment method our orders carry (hosted_checkout), as a WooCommerce gateway: so a refund the merchant makes in
 * wp-admin ("Refund … via Hosted Checkout") reaches the service, which gives the money back through the processor.
 *
 * Loaded only once WooCommerce is (from the woocommerce_payment_gateways filter): WC_Payment_Gateway is WooCommerce's.
 *
 * @package HostedCheckoutConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Never offered at WooCommerce's own checkout (the shopper pays on the hosted checkout). WooCommerce calls
 * process_refund only when the refund asks for it (wc_create_refund with refund_payment: the admin's "Refund via"
 * button, REST api_refund true): the refunds the service books itself are sent with api_refund false, so they never
 * come back here.
 */
class Hosted_Checkout_Gateway extends WC_Payment_Gateway {

	/** The payment method id the service writes on its orders (integrations/storefront-b/client.ts PAYMENT_METHOD_ID). */
	const ID = 'hosted_checkout';

	/** The merchant waits in wp-admin while the processor is asked: long enough for it, never unbounded. */
	const REFUND_TIMEOUT = 30;

	/** Sets the gateway up: refunds supported, no settings of its own (the connection is the Hosted Checkout page's). */
	public function __construct() {
		$this->id                 = self::ID;
		$this->method_title       = __( 'Hosted Checkout', 'hosted-checkout-connector' );
		$this->method_description = __( 'Orders paid on your hosted checkout. It is never offered at this store\'s own checkout; it lets you refund those orders here, the money going back to the shopper\'s card.', 'hosted-checkout-connector' );
		$this->title              = __( 'Card', 'hosted-checkout-connector' );
		$this->has_fields         = false;
		$this->supports           = array( 'products', 'refunds' );
	}

	/**
	 * Never available at the store's own checkout.
	 *
	 * @return bool
	 */
	public function is_available() {
		return false;
	}

	/**
	 * The refund WooCommerce has just created for this order (wc_create_refund saves it, then calls the gateway):
	 * the order's newest refund, read from the database (WC_Order::get_refunds may answer a cached list).
	 *
	 * @param int $order_id Order id.
	 * @return WC_Order_Refund|null
	 */
	public static function latest_refund( $order_id ) {
		$refunds = wc_get_orders(
			array(
				'type'    => 'shop_order_refund',
				'parent'  => (int) $order_id,
				'limit'   => 1,
				'orderby' => 'ID',
				'order'   => 'DESC',
			)
		);
		return is_array( $refunds ) && ! empty( $refunds ) ? $refunds[0] : null;
	}

	/**
	 * Tells the service of the refund, signed like a handoff. True once the service accepted it (the processor refund
	 * is asked for); otherwise a WP_Error with the service's reason, and WooCommerce deletes its refund and shows it.
	 *
	 * @param int        $order_id Order id.
	 * @param float|null $amount   Refund amount (WooCommerce passes the refund's amount).
	 * @param string     $reason   Refund reason.
	 * @return bool|WP_Error
	 */
	public function process_refund( $order_id, $amount = null, $reason = '' ) {
		$order = wc_get_order( $order_id );
		if ( ! $order ) {
			return self::failure( __( 'The order does not exist.', 'hosted-checkout-connector' ) );
		}
		$refund = self::latest_refund( $order_id );
		if ( ! $refund ) {
			return self::failure( __( 'The refund to send was not found on the order.', 'hosted-checkout-connector' ) );
		}
		$value = null === $amount ? (string) $refund->get_amount() : (string) $amount;
		if ( ! preg_match( '/^\d{1,12}(\.\d{1,8})?$/', $value ) || 0 >= (float) $value ) {
			return self::failure( __( 'The refund amount is not a positive amount.', 'hosted-checkout-connector' ) );
		}
		$service = untrailingslashit( (string) get_option( HOSTED_CHECKOUT_OPTION_SERVICE_URL, '' ) );
		$key     = (string) get_option( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY, '' );
		if ( '' === $service || '' === $key ) {
			return self::failure( __( 'The hosted checkout is not configured (WooCommerce → Hosted Checkout): the refund was not sent.', 'hosted-checkout-connector' ) );
		}
		$body    = wp_json_encode(
			array(
				'storeUrl' => untrailingslashit( home_url() ),
				'orderId'  => (int) $order->get_id(),
				'refundId' => (int) $refund->get_id(),
				'amount'   => $value,
				'reason'   => '' === (string) $reason ? null : (string) $reason,
			)
		);
		$headers = Hosted_Checkout_Signature::headers( $key, $body );
		if ( null === $headers ) {
			return self::failure( __( 'The connection key is not a REST API key of this store: the refund was not sent.', 'hosted-checkout-connector' ) );
		}
		$response = wp_remote_post(
			$service . '/webhooks/storefront-b/refunds',
			array(
				'timeout'     => self::REFUND_TIMEOUT,
				'redirection' => 0,
				'headers'     => $headers,
				'body'        => $body,
				'data_format' => 'body',
			)
		);
		if ( is_wp_error( $response ) ) {
			/* translators: %s: the HTTP error. */
			return self::failure( sprintf( __( 'The hosted checkout did not answer (%s): the refund was not made. Try again.', 'hosted-checkout-connector' ), $response->get_error_message() ) );
		}
		$status = (int) wp_remote_retrieve_response_code( $response );
		if ( $status >= 200 && $status < 300 ) {
			return true;
		}
		$answer  = json_decode( (string) wp_remote_retrieve_body( $response ), true );
		$message = is_array( $answer ) && is_string( $answer['error'] ?? null ) ? $answer['error'] : '';
		/* translators: 1: HTTP status, 2: the service's reason. */
		return self::failure( sprintf( __( 'The hosted checkout refused the refund (%1$d): %2$s', 'hosted-checkout-connector' ), $status, '' !== $message ? $message : __( 'no reason given', 'hosted-checkout-connector' ) ) );
	}

	/**
	 * A refusal WooCommerce shows the merchant.
	 *
	 * @param string $message What went wrong.
	 * @return WP_Error
	 */
	private static function failure( $message ) {
		return new WP_Error( 'hosted_checkout_refund_failed', $message );
	}
}
