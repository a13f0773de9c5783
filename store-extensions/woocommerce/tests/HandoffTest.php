<?php
/**
 * The checkout interception: handoff payload, signature, redirect, and every fallback to native checkout.
 *
 * @package HostedCheckoutConnector
 */

use PHPUnit\Framework\TestCase;

final class HandoffTest extends TestCase {

	const KEY    = 'ck_5f0e2d8c1b4a79e3c6d2f1a0b9e8d7c6b5a4f3e2';
	const SECRET = 'cs_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b';

	protected function setUp(): void {
		hc_wp_reset();
		add_filter( 'hosted_checkout_exit_after_redirect', '__return_false_stub' );
		$GLOBALS['hc_wp']['options'] = array( HOSTED_CHECKOUT_OPTION_SERVICE_URL => 'https://checkout.example/', HOSTED_CHECKOUT_OPTION_CONNECTION_KEY => self::KEY );
		$GLOBALS['hc_wp']['keys']    = array( self::KEY => self::SECRET );
		$GLOBALS['hc_wp']['cart']    = array(
			'a1' => array( 'product_id' => 10, 'variation_id' => 0, 'quantity' => 2 ),
			'b2' => array( 'product_id' => 11, 'variation_id' => 13, 'quantity' => 1 ),
		);
	}

	private function answer( $status, $body ) {
		$GLOBALS['hc_wp']['http'] = static function () use ( $status, $body ) {
			return array( 'response' => array( 'code' => $status ), 'body' => json_encode( $body ) );
		};
	}

	public function test_a_checkout_is_handed_over_signed_and_the_shopper_redirected_303(): void {
		$this->answer( 201, array( 'token' => 'cs_AbC123_-xyz456789', 'checkoutUrl' => 'https://demo.checkout.example/checkout/cs_AbC123_-xyz456789' ) );
		Hosted_Checkout_Handoff::maybe_intercept();

		$this->assertSame( array( array( 'https://demo.checkout.example/checkout/cs_AbC123_-xyz456789', 303 ) ), $GLOBALS['hc_wp']['redirects'] );
		// The shopper's session remembers the checkout, so the cart can be emptied once it is paid (Hosted_Checkout_Cart).
		$this->assertSame( array( 'hosted_checkout_token' => 'cs_AbC123_-xyz456789', 'hosted_checkout_checked_at' => 0 ), $GLOBALS['hc_wp']['session'] );
		$this->assertSame( 1, $GLOBALS['hc_wp']['nocache'] );
		$request = $GLOBALS['hc_wp']['requests'][0];
		$this->assertSame( 'https://checkout.example/api/checkout/create', $request['url'] );
		$this->assertSame( 0, $request['args']['redirection'] );
		$this->assertLessThanOrEqual( 5, $request['args']['timeout'] );
		$sent = json_decode( $request['args']['body'], true );
		// A random id per handoff, signed with the body: the service accepts each signed handoff once.
		$this->assertMatchesRegularExpression( '/^[0-9a-f]{32}$/', $sent['handoffId'] );
		unset( $sent['handoffId'] );
		$this->assertSame(
			array( 'platform' => 'storefront-b', 'storeUrl' => 'http://shop.example', 'cart' => array( 'items' => array( array( 'productId' => 10, 'quantity' => 2 ), array( 'productId' => 11, 'quantity' => 1, 'variationId' => 13 ) ), 'currency' => 'EUR' ), 'locale' => 'de_DE' ),
			$sent
		);
		$headers = $request['args']['headers'];
		$this->assertSame( self::KEY, $headers['X-Hosted-Checkout-Key'] );
		$expected = 'v1=' . hash_hmac( 'sha256', $headers['X-Hosted-Checkout-Timestamp'] . '.' . $request['args']['body'], self::SECRET );
		$this->assertSame( $expected, $headers['X-Hosted-Checkout-Signature'] );
		$this->assertEqualsWithDelta( time(), (int) $headers['X-Hosted-Checkout-Timestamp'], 5 );
	}

	public function test_a_handoff_the_service_already_received_sends_the_shopper_to_its_first_checkout(): void {
		$this->answer( 409, array( 'error' => 'This signed handoff already made a checkout', 'code' => 'HANDOFF_REPLAYED', 'details' => array( 'token' => 'cs_First123_abc456789', 'checkoutUrl' => 'https://demo.checkout.example/checkout/cs_First123_abc456789' ) ) );
		Hosted_Checkout_Handoff::maybe_intercept();

		$this->assertSame( array( array( 'https://demo.checkout.example/checkout/cs_First123_abc456789', 303 ) ), $GLOBALS['hc_wp']['redirects'] );
		$this->assertSame( 'cs_First123_abc456789', $GLOBALS['hc_wp']['session']['hosted_checkout_token'] );
		$this->assertFalse( (bool) get_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF ) );
	}

	public function test_two_handoffs_of_the_same_cart_carry_different_ids(): void {
		$this->answer( 201, array( 'token' => 'cs_AbC123_-xyz456789', 'checkoutUrl' => 'https://demo.checkout.example/checkout/cs_AbC123_-xyz456789' ) );
		Hosted_Checkout_Handoff::handoff();
		Hosted_Checkout_Handoff::handoff();
		$ids = array_map( static function ( $r ) { return json_decode( $r['args']['body'], true )['handoffId']; }, $GLOBALS['hc_wp']['requests'] );
		$this->assertCount( 2, array_unique( $ids ) );
	}

	public function test_the_signature_is_the_services_scheme(): void {
		// The same vector as integrations/storefront-b/handoff.ts computes (plugin.test.ts checks it there too).
		$this->assertSame( 'v1=' . hash_hmac( 'sha256', '1700000000.{"a":1}', 'cs_secret' ), Hosted_Checkout_Signature::sign( 'cs_secret', 1700000000, '{"a":1}' ) );
	}

	/** @dataProvider fallbacks */
	public function test_on_any_failure_the_native_checkout_renders( $scene, $backoff_seconds ): void {
		$scene( $this );
		Hosted_Checkout_Handoff::maybe_intercept();
		$this->assertSame( array(), $GLOBALS['hc_wp']['redirects'] );
		$this->assertSame( $backoff_seconds > 0, (bool) get_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF ) );
		if ( $backoff_seconds > 0 ) {
			$this->assertSame( $backoff_seconds, $GLOBALS['hc_wp']['transient_ttl'][ HOSTED_CHECKOUT_TRANSIENT_BACKOFF ] );
		}
		$this->assertArrayNotHasKey( 'hosted_checkout_token', $GLOBALS['hc_wp']['session'] );
	}

	public function fallbacks(): array {
		return array(
			'passthrough (Demo plan)' => array( static function ( $t ) { $t->answer( 200, array( 'passthrough' => true ) ); }, 0 ),
			'service 500'             => array( static function ( $t ) { $t->answer( 500, array( 'error' => 'x' ) ); }, 60 ),
			'timeout'                 => array( static function () { $GLOBALS['hc_wp']['http'] = static function () { return new WP_Error( 'http_request_failed', 'cURL error 28: Operation timed out' ); }; }, 60 ),
			// Every checkout of a store the service does not know (not connected, or disconnected) would pay the round trip.
			'404 no connected store'  => array( static function ( $t ) { $t->answer( 404, array( 'error' => 'No connected store matches this checkout request', 'code' => 'NOT_FOUND' ) ); }, 300 ),
			'401 bad signature'       => array( static function ( $t ) { $t->answer( 401, array( 'code' => 'UNAUTHORIZED' ) ); }, 0 ),
			'409 replayed, still being made' => array( static function ( $t ) { $t->answer( 409, array( 'code' => 'HANDOFF_REPLAYED' ) ); }, 0 ),
			'409 replayed, unsafe URL' => array( static function ( $t ) { $t->answer( 409, array( 'code' => 'HANDOFF_REPLAYED', 'details' => array( 'checkoutUrl' => 'javascript:alert(1)' ) ) ); }, 0 ),
			'409 other conflict'      => array( static function ( $t ) { $t->answer( 409, array( 'code' => 'CONFLICT', 'details' => array( 'checkoutUrl' => 'https://demo.checkout.example/checkout/x' ) ) ); }, 0 ),
			'javascript: URL'         => array( static function ( $t ) { $t->answer( 201, array( 'checkoutUrl' => 'javascript:alert(1)' ) ); }, 0 ),
			'http URL from https service' => array( static function ( $t ) { $t->answer( 201, array( 'checkoutUrl' => 'http://evil.example/x' ) ); }, 0 ),
			'not configured'          => array( static function () { $GLOBALS['hc_wp']['options'] = array(); $GLOBALS['hc_wp']['http'] = static function () { throw new RuntimeException( 'must not call' ); }; }, 0 ),
			'key not of this store'   => array( static function () { $GLOBALS['hc_wp']['keys'] = array(); $GLOBALS['hc_wp']['http'] = static function () { throw new RuntimeException( 'must not call' ); }; }, 0 ),
		);
	}

	public function test_an_answer_without_a_usable_token_still_redirects_and_remembers_nothing(): void {
		$this->answer( 201, array( 'token' => '../../etc', 'checkoutUrl' => 'https://demo.checkout.example/checkout/x' ) );
		Hosted_Checkout_Handoff::maybe_intercept();
		$this->assertCount( 1, $GLOBALS['hc_wp']['redirects'] );
		$this->assertSame( array(), $GLOBALS['hc_wp']['session'] );
	}

	/** @dataProvider not_the_checkout */
	public function test_other_pages_are_left_alone( $scene ): void {
		$GLOBALS['hc_wp']['http'] = static function () { throw new RuntimeException( 'must not call' ); };
		$scene();
		Hosted_Checkout_Handoff::maybe_intercept();
		$this->assertSame( array(), $GLOBALS['hc_wp']['requests'] );
	}

	public function not_the_checkout(): array {
		return array(
			'not the checkout page' => array( static function () { $GLOBALS['hc_wp']['is_checkout'] = false; } ),
			'order received'        => array( static function () { $GLOBALS['hc_wp']['endpoint'] = 'order-received'; } ),
			'order pay'             => array( static function () { $GLOBALS['hc_wp']['endpoint'] = 'order-pay'; } ),
			'empty cart'            => array( static function () { $GLOBALS['hc_wp']['cart'] = array(); } ),
			'admin'                 => array( static function () { $GLOBALS['hc_wp']['is_admin'] = true; } ),
			'service backing off'   => array( static function () { set_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF, 1 ); } ),
		);
	}

	public function test_the_plugin_hooks_template_redirect_after_the_paid_cart_check(): void {
		$hooked     = $GLOBALS['hc_wp_boot_actions']['template_redirect'];
		$priorities = $GLOBALS['hc_wp_boot_priorities']['template_redirect'];
		$intercept  = array_search( array( 'Hosted_Checkout_Handoff', 'maybe_intercept' ), $hooked, true );
		$cart       = array_search( array( 'Hosted_Checkout_Cart', 'maybe_empty_paid_cart' ), $hooked, true );
		$this->assertNotFalse( $intercept );
		$this->assertNotFalse( $cart );
		// A cart already paid for is emptied before the checkout would hand it over a second time.
		$this->assertLessThan( $priorities[ $intercept ], $priorities[ $cart ] );
	}
}

function __return_false_stub() {
	return false;
}
