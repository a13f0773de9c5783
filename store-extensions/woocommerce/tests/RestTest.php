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

	public function test_the_policies_route_is_in_the_same_namespace_and_needs_what_reading_settings_needs(): void {
		$route = $GLOBALS['hc_wp']['routes']['wc-hosted-checkout/v1/policies'];
		$this->assertSame( 'GET', $route['methods'] );
		$this->assertTrue( $route['permission_callback']() );
		// A key of a user who may read orders but not the store's settings.
		$GLOBALS['hc_wp']['caps'] = array( 'read_private_shop_orders' );
		$this->assertFalse( $route['permission_callback']() );
	}

	public function test_published_policy_pages_are_answered_with_their_title_and_permalink(): void {
		$GLOBALS['hc_wp']['options'] = array( 'woocommerce_terms_page_id' => '12', 'wp_page_for_privacy_policy' => '3', 'woocommerce_refund_returns_page_id' => '14' );
		$GLOBALS['hc_wp']['pages']   = array(
			12 => array( 'title' => 'Terms & Conditions', 'status' => 'publish', 'slug' => 'terms' ),
			3  => array( 'title' => '<b>Privacy</b> Policy', 'status' => 'publish', 'slug' => 'privacy-policy' ),
			14 => array( 'title' => 'Refund and Returns Policy', 'status' => 'publish', 'slug' => 'refund_returns' ),
		);

		$answer = Hosted_Checkout_Rest::policies();

		$this->assertSame(
			array(
				'policies' => array(
					array( 'type' => 'terms', 'page_id' => 12, 'title' => 'Terms & Conditions', 'url' => 'http://shop.example/terms/' ),
					array( 'type' => 'privacy', 'page_id' => 3, 'title' => 'Privacy Policy', 'url' => 'http://shop.example/privacy-policy/' ),
					array( 'type' => 'refund', 'page_id' => 14, 'title' => 'Refund and Returns Policy', 'url' => 'http://shop.example/refund_returns/' ),
				),
			),
			$answer
		);
	}

	public function test_a_draft_private_trashed_missing_or_unset_page_is_not_answered(): void {
		// A new shop: WooCommerce made its refund page as a draft, WordPress its privacy page as a draft, no terms page.
		$GLOBALS['hc_wp']['options'] = array( 'wp_page_for_privacy_policy' => '3', 'woocommerce_refund_returns_page_id' => '14' );
		$GLOBALS['hc_wp']['pages']   = array(
			3  => array( 'title' => 'Privacy Policy', 'status' => 'draft', 'slug' => 'privacy-policy' ),
			14 => array( 'title' => 'Refund and Returns Policy', 'status' => 'draft', 'slug' => 'refund_returns' ),
		);
		$this->assertSame( array( 'policies' => array() ), Hosted_Checkout_Rest::policies() );

		$GLOBALS['hc_wp']['options']['woocommerce_terms_page_id'] = '99';
		$GLOBALS['hc_wp']['pages'][3]['status']                   = 'private';
		$GLOBALS['hc_wp']['pages'][14]['status']                  = 'trash';
		$this->assertSame( array( 'policies' => array() ), Hosted_Checkout_Rest::policies() );

		$GLOBALS['hc_wp']['pages'][14]['status'] = 'publish';
		$this->assertSame( array( 'refund' ), array_column( Hosted_Checkout_Rest::policies()['policies'], 'type' ) );
	}
}
