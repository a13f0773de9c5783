<?php
/**
 * The store cart after a hosted checkout: emptied at a later page once the service says it was paid.
 *
 * @package HostedCheckoutConnector
 */

use PHPUnit\Framework\TestCase;

final class CartTest extends TestCase {

	const TOKEN = 'cs_R2d2C3poBb8Ewok-_x';

	protected function setUp(): void {
		hc_wp_reset();
		$GLOBALS['hc_wp']['options'] = array( HOSTED_CHECKOUT_OPTION_SERVICE_URL => 'https://checkout.example/' );
		$GLOBALS['hc_wp']['cart']    = array( 'a1' => array( 'product_id' => 10, 'variation_id' => 0, 'quantity' => 2 ) );
		Hosted_Checkout_Cart::remember( self::TOKEN );
	}

	private function service_says( $status, $body ) {
		$GLOBALS['hc_wp']['http'] = static function () use ( $status, $body ) {
			return array( 'response' => array( 'code' => $status ), 'body' => is_string( $body ) ? $body : json_encode( $body ) );
		};
	}

	/** @dataProvider paid */
	public function test_a_paid_checkout_empties_the_cart_and_is_forgotten( $status ): void {
		$this->service_says( 200, array( 'token' => self::TOKEN, 'status' => $status ) );
		Hosted_Checkout_Cart::maybe_empty_paid_cart();

		$this->assertSame( array(), $GLOBALS['hc_wp']['cart'] );
		$this->assertSame( 1, $GLOBALS['hc_wp']['emptied'] );
		$this->assertNull( $GLOBALS['hc_wp']['session']['hosted_checkout_token'] );
		$request = $GLOBALS['hc_wp']['requests'][0];
		$this->assertSame( 'https://checkout.example/api/checkout/session/' . self::TOKEN, $request['url'] );
		$this->assertSame( 'GET', $request['args']['method'] );
		$this->assertLessThanOrEqual( 2, $request['args']['timeout'] );
		$this->assertSame( 0, $request['args']['redirection'] );
	}

	public function paid(): array {
		return array( 'COMPLETED' => array( 'COMPLETED' ), 'COD_CONFIRMED' => array( 'COD_CONFIRMED' ), 'REFUNDED' => array( 'REFUNDED' ), 'ON_HOLD' => array( 'ON_HOLD' ) );
	}

	/** @dataProvider not_yet */
	public function test_an_unpaid_checkout_or_a_failing_service_leaves_the_cart_and_keeps_asking( $scene ): void {
		$scene( $this );
		Hosted_Checkout_Cart::maybe_empty_paid_cart();
		$this->assertCount( 1, $GLOBALS['hc_wp']['cart'] );
		$this->assertSame( self::TOKEN, $GLOBALS['hc_wp']['session']['hosted_checkout_token'] );
		$this->assertCount( 1, $GLOBALS['hc_wp']['requests'] );
	}

	public function not_yet(): array {
		return array(
			'open'            => array( static function ( $t ) { $t->service_says( 200, array( 'status' => 'OPEN' ) ); } ),
			'payment pending' => array( static function ( $t ) { $t->service_says( 200, array( 'status' => 'PAYMENT_PENDING' ) ); } ),
			'failed'          => array( static function ( $t ) { $t->service_says( 200, array( 'status' => 'FAILED' ) ); } ),
			'service 503'     => array( static function ( $t ) { $t->service_says( 503, array( 'error' => 'x' ) ); } ),
			'not JSON'        => array( static function ( $t ) { $t->service_says( 200, '<html>' ); } ),
			'unreachable'     => array( static function () { $GLOBALS['hc_wp']['http'] = static function () { return new WP_Error( 'http_request_failed', 'cURL error 28: Operation timed out' ); }; } ),
		);
	}

	public function test_it_asks_at_most_once_every_few_seconds_per_shopper(): void {
		$this->service_says( 200, array( 'status' => 'PAYMENT_PENDING' ) );
		Hosted_Checkout_Cart::maybe_empty_paid_cart();
		Hosted_Checkout_Cart::maybe_empty_paid_cart();
		$this->assertCount( 1, $GLOBALS['hc_wp']['requests'] );

		// Some seconds later the next page asks again, and this time it is paid.
		$GLOBALS['hc_wp']['session']['hosted_checkout_checked_at'] = time() - HOSTED_CHECKOUT_PAID_CHECK_INTERVAL;
		$this->service_says( 200, array( 'status' => 'COMPLETED' ) );
		Hosted_Checkout_Cart::maybe_empty_paid_cart();
		$this->assertCount( 2, $GLOBALS['hc_wp']['requests'] );
		$this->assertSame( array(), $GLOBALS['hc_wp']['cart'] );
	}

	/** @dataProvider over */
	public function test_a_checkout_that_will_never_be_paid_is_forgotten_and_the_cart_stays( $status, $body ): void {
		$this->service_says( $status, $body );
		Hosted_Checkout_Cart::maybe_empty_paid_cart();
		$this->assertCount( 1, $GLOBALS['hc_wp']['cart'] );
		$this->assertNull( $GLOBALS['hc_wp']['session']['hosted_checkout_token'] );
	}

	public function over(): array {
		return array(
			'abandoned'     => array( 200, array( 'status' => 'ABANDONED' ) ),
			'unknown token' => array( 404, array( 'code' => 'NOT_FOUND' ) ),
		);
	}

	/** @dataProvider nothing_to_ask */
	public function test_without_a_remembered_checkout_or_outside_shop_pages_nothing_is_asked( $scene ): void {
		$GLOBALS['hc_wp']['http'] = static function () { throw new RuntimeException( 'must not call' ); };
		$scene();
		Hosted_Checkout_Cart::maybe_empty_paid_cart();
		$this->assertSame( array(), $GLOBALS['hc_wp']['requests'] );
	}

	public function nothing_to_ask(): array {
		return array(
			'no checkout remembered' => array( static function () { $GLOBALS['hc_wp']['session'] = array(); } ),
			'no session'             => array( static function () { $GLOBALS['hc_wp']['session'] = null; } ),
			'admin'                  => array( static function () { $GLOBALS['hc_wp']['is_admin'] = true; } ),
			'not configured'         => array( static function () { $GLOBALS['hc_wp']['options'] = array(); } ),
		);
	}
}
