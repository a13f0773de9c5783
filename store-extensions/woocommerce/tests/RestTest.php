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

	/** WooCommerce's REST answers for a store with a simple product 10, a variable product 20 (variations 21, 22) and EUR. */
	private function store(): void {
		$product   = static function ( $id, $type, $price, $variations ) {
			return array( 'id' => $id, 'name' => "Product $id", 'slug' => "product-$id", 'type' => $type, 'price' => $price, 'regular_price' => $price, 'stock_status' => 'instock', 'images' => array( array( 'id' => 7, 'src' => "http://shop.example/$id.jpg" ), array( 'id' => 8, 'src' => 'http://shop.example/more.jpg' ) ), 'variations' => $variations, '_links' => array() );
		};
		$variation = static function ( $id, $price ) {
			return array( 'id' => $id, 'sku' => "V$id", 'price' => $price, 'stock_status' => 'instock', 'image' => null, 'attributes' => array( array( 'id' => 0, 'name' => 'Size', 'option' => "S$id" ) ), '_links' => array() );
		};
		$all       = array( 10 => $product( 10, 'simple', '12.50', array() ), 20 => $product( 20, 'variable', '8', array( 21, 22 ) ) );
		$variants  = array( 21 => $variation( 21, '8' ), 22 => $variation( 22, '9.5' ) );
		$GLOBALS['hc_wp']['rest'] = array(
			'/wc/v3/data/currencies/current'  => static function () {
				return array( 'code' => 'EUR', 'name' => 'Euro', 'symbol' => '&euro;' );
			},
			'/wc/v3/products'                 => static function ( $query ) use ( $all ) {
				return array_values( array_intersect_key( $all, array_flip( $query['include'] ) ) );
			},
			'/wc/v3/products/20/variations'   => static function ( $query ) use ( $variants ) {
				return array_values( array_intersect_key( $variants, array_flip( $query['include'] ) ) );
			},
		);
	}

	public function test_the_cart_prices_route_needs_what_its_reads_need_and_takes_only_id_lists(): void {
		$route = $GLOBALS['hc_wp']['routes']['wc-hosted-checkout/v1/cart-prices'];
		$this->assertSame( 'GET', $route['methods'] );
		$this->assertTrue( $route['permission_callback']() );
		// Products and variations ask read_private_products; the currency manage_woocommerce: neither alone is enough.
		$GLOBALS['hc_wp']['caps'] = array( 'read_private_products' );
		$this->assertFalse( $route['permission_callback']() );
		$GLOBALS['hc_wp']['caps'] = array( 'manage_woocommerce' );
		$this->assertFalse( $route['permission_callback']() );

		// WordPress checks a string argument's pattern as rest_validate_json_schema_pattern does.
		$matches = static function ( $arg, $value ) use ( $route ) {
			return 1 === preg_match( '#' . str_replace( '#', '\\#', $route['args'][ $arg ]['pattern'] ) . '#u', $value );
		};
		$this->assertSame( '', $route['args']['products']['default'] );
		$this->assertTrue( $matches( 'products', '' ) );
		$this->assertTrue( $matches( 'products', '10' ) );
		$this->assertTrue( $matches( 'products', '10,20,' . implode( ',', range( 1, 98 ) ) ) );
		$this->assertFalse( $matches( 'products', implode( ',', range( 1, 101 ) ) ) );
		foreach ( array( '0', '10,', '10,,20', '-1', '1e3', '10 20', '10;20' ) as $bad ) {
			$this->assertFalse( $matches( 'products', $bad ), $bad );
		}
		$this->assertSame( '', $route['args']['variations']['default'] );
		$this->assertTrue( $matches( 'variations', '' ) );
		$this->assertTrue( $matches( 'variations', '20:21,20:22,30:31' ) );
		foreach ( array( '20', '20:', ':21', '20:21,', '20:0', '20-21' ) as $bad ) {
			$this->assertFalse( $matches( 'variations', $bad ), $bad );
		}
	}

	public function test_the_cart_prices_are_woocommerces_own_reads_in_one_answer_with_the_fields_the_service_reads(): void {
		$this->store();

		$answer = Hosted_Checkout_Rest::cart_prices( new WP_REST_Request( array( 'products' => '10,20,99', 'variations' => '20:21,20:22,20:21' ) ) );

		$this->assertSame(
			array(
				'currency'   => 'EUR',
				'products'   => array(
					array( 'id' => 10, 'name' => 'Product 10', 'type' => 'simple', 'price' => '12.50', 'stock_status' => 'instock', 'images' => array( array( 'id' => 7, 'src' => 'http://shop.example/10.jpg' ) ), 'variations' => array() ),
					array( 'id' => 20, 'name' => 'Product 20', 'type' => 'variable', 'price' => '8', 'stock_status' => 'instock', 'images' => array( array( 'id' => 7, 'src' => 'http://shop.example/20.jpg' ) ), 'variations' => array( 21, 22 ) ),
				),
				'variations' => array(
					array( 'product_id' => 20, 'id' => 21, 'price' => '8', 'stock_status' => 'instock', 'image' => null, 'attributes' => array( array( 'id' => 0, 'name' => 'Size', 'option' => 'S21' ) ) ),
					array( 'product_id' => 20, 'id' => 22, 'price' => '9.5', 'stock_status' => 'instock', 'image' => null, 'attributes' => array( array( 'id' => 0, 'name' => 'Size', 'option' => 'S22' ) ) ),
				),
			),
			$answer
		);
		// One read per route, each of the ids asked once, in one page.
		$this->assertSame(
			array(
				array( 'GET /wc/v3/data/currencies/current', array() ),
				array( 'GET /wc/v3/products', array( 'include' => array( 10, 20, 99 ), 'per_page' => 100 ) ),
				array( 'GET /wc/v3/products/20/variations', array( 'include' => array( 21, 22 ), 'per_page' => 100 ) ),
			),
			$GLOBALS['hc_wp']['dispatched']
		);
	}

	public function test_a_cart_without_variations_reads_no_variations_and_without_products_no_product_list(): void {
		$this->store();
		$answer = Hosted_Checkout_Rest::cart_prices( new WP_REST_Request( array( 'products' => '10', 'variations' => '' ) ) );
		$this->assertSame( array( 10 ), array_column( $answer['products'], 'id' ) );
		$this->assertSame( array(), $answer['variations'] );
		$this->assertSame( array( 'GET /wc/v3/data/currencies/current', 'GET /wc/v3/products' ), array_column( $GLOBALS['hc_wp']['dispatched'], 0 ) );

		// Only variations (the service has the products already): an empty include= would list every product, so none is read.
		$GLOBALS['hc_wp']['dispatched'] = array();
		$answer                         = Hosted_Checkout_Rest::cart_prices( new WP_REST_Request( array( 'products' => '', 'variations' => '20:22' ) ) );
		$this->assertSame( array( array(), array( 22 ) ), array( $answer['products'], array_column( $answer['variations'], 'id' ) ) );
		$this->assertSame( array( 'GET /wc/v3/data/currencies/current', 'GET /wc/v3/products/20/variations' ), array_column( $GLOBALS['hc_wp']['dispatched'], 0 ) );
	}

	public function test_a_refused_or_failed_inner_read_is_the_answer(): void {
		$this->store();
		$GLOBALS['hc_wp']['rest']['/wc/v3/products'] = static function () {
			return new WP_Error( 'woocommerce_rest_cannot_view', 'Sorry, you cannot list resources.', array( 'status' => 401 ) );
		};
		$refused = Hosted_Checkout_Rest::cart_prices( new WP_REST_Request( array( 'products' => '10' ) ) );
		$this->assertSame( array( 'woocommerce_rest_cannot_view', 401 ), array( $refused->get_error_code(), $refused->get_error_data()['status'] ) );

		// An unknown product's variations: left out, as an unknown id is (its read may answer 404).
		$GLOBALS['hc_wp']['rest']['/wc/v3/products'] = static function () {
			return array();
		};
		$GLOBALS['hc_wp']['rest']['/wc/v3/products/99/variations'] = static function () {
			return new WP_Error( 'woocommerce_rest_product_invalid_id', 'Invalid ID.', array( 'status' => 404 ) );
		};
		$this->assertSame( array( 'currency' => 'EUR', 'products' => array(), 'variations' => array() ), Hosted_Checkout_Rest::cart_prices( new WP_REST_Request( array( 'products' => '99', 'variations' => '99:5' ) ) ) );

		$GLOBALS['hc_wp']['rest']['/wc/v3/data/currencies/current'] = static function () {
			return new WP_Error( 'woocommerce_rest_cannot_view', 'Sorry, you cannot view this resource.', array( 'status' => 403 ) );
		};
		$GLOBALS['hc_wp']['dispatched'] = array();
		$this->assertSame( 'woocommerce_rest_cannot_view', Hosted_Checkout_Rest::cart_prices( new WP_REST_Request( array( 'products' => '10' ) ) )->get_error_code() );
		$this->assertCount( 1, $GLOBALS['hc_wp']['dispatched'] );
	}
}
