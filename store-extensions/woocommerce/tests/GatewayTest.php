<?php
/**
 * The payment gateway of our orders: registered with WooCommerce, never offered at its checkout, and its
 * process_refund (a refund made in wp-admin) sent to the service signed, with the service's answer as WooCommerce's.
 *
 * @package HostedCheckoutConnector
 */

use PHPUnit\Framework\TestCase;

final class GatewayTest extends TestCase {

	const KEY    = 'ck_5f0e2d8c1b4a79e3c6d2f1a0b9e8d7c6b5a4f3e2';
	const SECRET = 'cs_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b';

	protected function setUp(): void {
		hc_wp_reset();
		$GLOBALS['hc_wp']['options'] = array( HOSTED_CHECKOUT_OPTION_SERVICE_URL => 'https://checkout.example/', HOSTED_CHECKOUT_OPTION_CONNECTION_KEY => self::KEY );
		$GLOBALS['hc_wp']['keys']    = array( self::KEY => self::SECRET );
		$GLOBALS['hc_wp']['orders']  = array( array( 'id' => 42, 'status' => 'processing', 'created' => 1700000000, 'total' => '30.00', 'meta' => array() ) );
		// The order's earlier refund (71) and the one WooCommerce just created (73).
		$GLOBALS['hc_wp']['refunds'] = array( array( 'id' => 71, 'parent' => 42, 'amount' => '2.00' ), array( 'id' => 73, 'parent' => 42, 'amount' => '5.50' ) );
	}

	private function gateway(): Hosted_Checkout_Gateway {
		$registered = $GLOBALS['hc_wp_boot_filters']['woocommerce_payment_gateways'][0]( array( 'WC_Gateway_BACS' ) );
		$this->assertSame( array( 'WC_Gateway_BACS', 'Hosted_Checkout_Gateway' ), $registered );
		return new Hosted_Checkout_Gateway();
	}

	private function answer( $status, $body ) {
		$GLOBALS['hc_wp']['http'] = static function () use ( $status, $body ) {
			return array( 'response' => array( 'code' => $status ), 'body' => json_encode( $body ) );
		};
	}

	public function test_the_gateway_is_registered_with_our_orders_payment_method_supports_refunds_and_is_never_offered_at_checkout(): void {
		$gateway = $this->gateway();
		$this->assertSame( 'hosted_checkout', $gateway->id );
		$this->assertTrue( $gateway->supports( 'refunds' ) );
		$this->assertTrue( $gateway->supports( 'products' ) );
		$this->assertTrue( $gateway->can_refund_order( wc_get_order( 42 ) ) );
		$this->assertFalse( $gateway->is_available() );
		$gateway->enabled = 'yes';
		$this->assertFalse( $gateway->is_available(), 'enabled in the settings, still never offered' );
	}

	public function test_a_refund_made_in_wp_admin_is_sent_signed_with_the_newest_refund_and_accepted_on_2xx(): void {
		$this->answer( 202, array( 'accepted' => true ) );
		$this->assertTrue( $this->gateway()->process_refund( 42, '5.50', 'Damaged' ) );

		$request = $GLOBALS['hc_wp']['requests'][0];
		$this->assertSame( 'https://checkout.example/webhooks/storefront-b/refunds', $request['url'] );
		$this->assertSame( 'POST', $request['args']['method'] );
		$this->assertSame( 0, $request['args']['redirection'] );
		$this->assertSame( array( 'storeUrl' => 'http://shop.example', 'orderId' => 42, 'refundId' => 73, 'amount' => '5.50', 'reason' => 'Damaged' ), json_decode( $request['args']['body'], true ) );
		$headers = $request['args']['headers'];
		$this->assertSame( self::KEY, $headers['X-Hosted-Checkout-Key'] );
		$this->assertSame( 'v1=' . hash_hmac( 'sha256', $headers['X-Hosted-Checkout-Timestamp'] . '.' . $request['args']['body'], self::SECRET ), $headers['X-Hosted-Checkout-Signature'] );
		$this->assertEqualsWithDelta( time(), (int) $headers['X-Hosted-Checkout-Timestamp'], 5 );
	}

	public function test_no_reason_is_sent_as_null(): void {
		$this->answer( 202, array( 'accepted' => true ) );
		$this->assertTrue( $this->gateway()->process_refund( 42, '5.50', '' ) );
		$this->assertNull( json_decode( $GLOBALS['hc_wp']['requests'][0]['args']['body'], true )['reason'] );
	}

	public function test_a_refusal_of_the_service_is_a_wp_error_with_its_message(): void {
		$this->answer( 422, array( 'error' => 'Refund exceeds the remaining balance (25.00 left)', 'code' => 'REFUND_EXCEEDS_BALANCE' ) );
		$result = $this->gateway()->process_refund( 42, '5.50', 'Damaged' );
		$this->assertInstanceOf( WP_Error::class, $result );
		$this->assertStringContainsString( 'Refund exceeds the remaining balance (25.00 left)', $result->get_error_message() );
		$this->assertStringContainsString( '422', $result->get_error_message() );
	}

	public function test_a_service_that_fails_or_does_not_answer_is_a_wp_error(): void {
		$this->answer( 500, 'not json' );
		$this->assertInstanceOf( WP_Error::class, $this->gateway()->process_refund( 42, '5.50' ) );
		$GLOBALS['hc_wp']['http'] = static fn() => new WP_Error( 'http_request_failed', 'cURL error 28: timed out' );
		$result = $this->gateway()->process_refund( 42, '5.50' );
		$this->assertInstanceOf( WP_Error::class, $result );
		$this->assertStringContainsString( 'cURL error 28', $result->get_error_message() );
	}

	public function test_nothing_is_sent_without_settings_a_key_of_this_store_an_order_a_refund_or_an_amount(): void {
		$gateway = $this->gateway();
		$this->answer( 202, array( 'accepted' => true ) );
		$this->assertInstanceOf( WP_Error::class, $gateway->process_refund( 999, '5.50' ), 'no such order' );
		$GLOBALS['hc_wp']['refunds'] = array();
		$this->assertInstanceOf( WP_Error::class, $gateway->process_refund( 42, '5.50' ), 'no refund on the order' );
		$this->setUp();
		$this->answer( 202, array( 'accepted' => true ) );
		$this->assertInstanceOf( WP_Error::class, $gateway->process_refund( 42, '0' ), 'nothing to refund' );
		$this->assertInstanceOf( WP_Error::class, $gateway->process_refund( 42, '-1.00' ), 'a negative amount' );
		$GLOBALS['hc_wp']['keys'] = array();
		$this->assertInstanceOf( WP_Error::class, $gateway->process_refund( 42, '5.50' ), 'the key is not one of this store' );
		$GLOBALS['hc_wp']['options'] = array();
		$this->assertInstanceOf( WP_Error::class, $gateway->process_refund( 42, '5.50' ), 'not configured' );
		$this->assertSame( array(), $GLOBALS['hc_wp']['requests'] );
	}
}
