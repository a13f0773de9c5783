<?php
/**
 * The lookup route: registered in a wc- namespace, finds the order by session token meta.
 *
 * @package HostedCheckoutConnector
 */

use PHPUnit\Framework\TestCase;

final class RestTest extends TestCase {

	protected function setUp(): void {
		hc_wp_reset();
		Hosted_Checkout_Rest::register_routes();
		$GLOBALS['hc_wp']['orders'] = array(
			array( 'id' => 727, 'status' => 'processing', 'created' => 1700000000, 'paid' => 1700000060, 'total' => '26.2', 'transaction_id' => 'pay_1', 'meta' => array( HOSTED_CHECKOUT_SESSION_META => 'cs_aaaaaaaaaaaaaaaa' ) ),
			array( 'id' => 728, 'status' => 'pending', 'created' => 1700000100, 'total' => '5', 'meta' => array( HOSTED_CHECKOUT_SESSION_META => 'cs_bbbbbbbbbbbbbbbb' ) ),
		);
	}

	private function route() {
		return $GLOBALS['hc_wp']['routes']['wc-hosted-checkout/v1/orders/by-session/(?P<token>[A-Za-z0-9_-]{8,128})'];
	}

	public function test_the_route_is_in_a_wc_namespace_so_woocommerce_key_auth_applies(): void {
		$route = $this->route();
		$this->assertSame( 'GET', $route['methods'] );
		$this->assertSame( 0, strpos( Hosted_Checkout_Rest::REST_NAMESPACE, 'wc-' ) );
		$this->assertTrue( $route['permission_callback']() );
		$GLOBALS['hc_wp']['caps'] = array();
		$this->assertFalse( $route['permission_callback']() );
	}

	public function test_an_order_is_found_by_its_session_token_meta(): void {
		$found = Hosted_Checkout_Rest::find_by_session( new WP_REST_Request( array( 'token' => 'cs_aaaaaaaaaaaaaaaa' ) ) );
		$this->assertSame(
			array( 'found' => true, 'order_id' => 727, 'number' => '727', 'status' => 'processing', 'order_key' => 'wc_order_727', 'date_created_gmt' => '2023-11-14T22:13:20', 'date_paid_gmt' => '2023-11-14T22:14:20', 'total' => '26.20', 'currency' => 'EUR', 'transaction_id' => 'pay_1' ),
			$found
		);
		$query = $GLOBALS['hc_wp']['queries'][0];
		$this->assertSame( HOSTED_CHECKOUT_SESSION_META, $query['meta_key'] );
		$this->assertSame( array( 'wc-pending', 'wc-processing', 'wc-on-hold', 'wc-completed', 'wc-cancelled', 'wc-refunded', 'wc-failed' ), $query['status'] );
		$this->assertArrayNotHasKey( 'meta_query', $query );
		$unpaid = Hosted_Checkout_Rest::find_by_session( new WP_REST_Request( array( 'token' => 'cs_bbbbbbbbbbbbbbbb' ) ) );
		$this->assertNull( $unpaid['date_paid_gmt'] );
	}

	public function test_a_draft_left_by_a_failed_create_and_a_trashed_order_are_not_the_order(): void {
		// WooCommerce saves the row before it checks coupons: an unknown coupon leaves a checkout-draft with our meta.
		$GLOBALS['hc_wp']['orders'] = array(
			array( 'id' => 801, 'status' => 'checkout-draft', 'created' => 1700000000, 'total' => '10', 'meta' => array( HOSTED_CHECKOUT_SESSION_META => 'cs_dddddddddddddddd' ) ),
			array( 'id' => 802, 'status' => 'trash', 'created' => 1700000000, 'total' => '10', 'meta' => array( HOSTED_CHECKOUT_SESSION_META => 'cs_dddddddddddddddd' ) ),
		);
		$none = Hosted_Checkout_Rest::find_by_session( new WP_REST_Request( array( 'token' => 'cs_dddddddddddddddd' ) ) );
		$this->assertSame( array( 'hc_order_not_found', 404 ), array( $none->get_error_code(), $none->get_error_data()['status'] ) );

		// The create that follows is the order, alone (not a 409 with the leftovers).
		$GLOBALS['hc_wp']['orders'][] = array( 'id' => 803, 'status' => 'processing', 'created' => 1700000100, 'paid' => 1700000100, 'total' => '10', 'meta' => array( HOSTED_CHECKOUT_SESSION_META => 'cs_dddddddddddddddd' ) );
		$found = Hosted_Checkout_Rest::find_by_session( new WP_REST_Request( array( 'token' => 'cs_dddddddddddddddd' ) ) );
		$this->assertSame( 803, $found['order_id'] );
	}

	public function test_no_order_is_404_and_two_are_409(): void {
		$none = Hosted_Checkout_Rest::find_by_session( new WP_REST_Request( array( 'token' => 'cs_cccccccccccccccc' ) ) );
		$this->assertSame( array( 'hc_order_not_found', 404 ), array( $none->get_error_code(), $none->get_error_data()['status'] ) );
		$GLOBALS['hc_wp']['orders'][1]['meta'][ HOSTED_CHECKOUT_SESSION_META ] = 'cs_aaaaaaaaaaaaaaaa';
		$two = Hosted_Checkout_Rest::find_by_session( new WP_REST_Request( array( 'token' => 'cs_aaaaaaaaaaaaaaaa' ) ) );
		$this->assertSame( array( 'hc_order_ambiguous', 409, array( 727, 728 ) ), array( $two->get_error_code(), $two->get_error_data()['status'], $two->get_error_data()['order_ids'] ) );
	}
}
