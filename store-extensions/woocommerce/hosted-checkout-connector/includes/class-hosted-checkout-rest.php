<?php
/**
 * The plugin's REST routes: the service finds the order of a checkout session (exactly-once creates), reads
 * the store's policy pages its checkout page links to, and reads a handed-over cart's prices in one request.
 *
 * @package HostedCheckoutConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * The namespace starts with "wc-" so that WooCommerce's REST key authentication (Basic over HTTPS, OAuth
 * 1.0a over HTTP) applies to it: the service calls it with the same consumer key as /wc/v3.
 */
class Hosted_Checkout_Rest {

	const REST_NAMESPACE = 'wc-hosted-checkout/v1';

	/** Up to 100 product ids, comma-separated (a cart holds at most 100 lines), or nothing. */
	const PRODUCT_IDS_PATTERN = '^([1-9][0-9]{0,14}(,[1-9][0-9]{0,14}){0,99})?$';

	/** Up to 100 "<product id>:<variation id>" pairs, comma-separated, or nothing. */
	const VARIATION_PAIRS_PATTERN = '^([1-9][0-9]{0,14}:[1-9][0-9]{0,14}(,[1-9][0-9]{0,14}:[1-9][0-9]{0,14}){0,99})?$';

	/**
	 * Registers GET /wc-hosted-checkout/v1/orders/by-session/<token>, GET /wc-hosted-checkout/v1/policies and
	 * GET /wc-hosted-checkout/v1/cart-prices.
	 *
	 * @return void
	 */
	public static function register_routes() {
		register_rest_route(
			self::REST_NAMESPACE,
			'/orders/by-session/(?P<token>[A-Za-z0-9_-]{8,128})',
			array(
				'methods'             => 'GET',
				'callback'            => array( __CLASS__, 'find_by_session' ),
				'permission_callback' => static function () {
					return current_user_can( 'read_private_shop_orders' );
				},
			)
		);
		register_rest_route(
			self::REST_NAMESPACE,
			'/policies',
			array(
				'methods'             => 'GET',
				'callback'            => array( __CLASS__, 'policies' ),
				// What reading the store's settings asks (WC_REST_Setting_Options_Controller): the policy pages are settings.
				'permission_callback' => static function () {
					return current_user_can( 'manage_woocommerce' );
				},
			)
		);
		register_rest_route(
			self::REST_NAMESPACE,
			'/cart-prices',
			array(
				'methods'             => 'GET',
				'callback'            => array( __CLASS__, 'cart_prices' ),
				// What the three reads it makes ask: products and variations (read_private_products), the currency (manage_woocommerce).
				'permission_callback' => static function () {
					return current_user_can( 'read_private_products' ) && current_user_can( 'manage_woocommerce' );
				},
				'args'                => array(
					'products'   => array(
						'type'    => 'string',
						'default' => '',
						'pattern' => self::PRODUCT_IDS_PATTERN,
					),
					'variations' => array(
						'type'    => 'string',
						'default' => '',
						'pattern' => self::VARIATION_PAIRS_PATTERN,
					),
				),
			)
		);
	}

	/**
	 * A handed-over cart's prices in one request: the products by id, each named variation of its product, and the
	 * store currency. The service would otherwise make these reads one HTTP request each (GET /wc/v3/products?include=,
	 * GET /wc/v3/products/<id>/variations?include= per variable product, GET /wc/v3/data/currencies/current), on the
	 * shopper's way to the checkout. They are made here through rest_do_request(), so each is WooCommerce's own
	 * controller with its own permission check for the same user, and answers what it would answer over HTTP; only the
	 * fields the service reads are passed on. An id the store does not have is not in the answer, as with include=.
	 *
	 * @param WP_REST_Request $request Request: products "12,34", variations "34:56,34:57" (product:variation).
	 * @return WP_REST_Response|array|WP_Error
	 */
	public static function cart_prices( $request ) {
		$product_ids = array_filter( wp_parse_id_list( (string) $request->get_param( 'products' ) ) );
		$by_product  = array();
		foreach ( array_filter( explode( ',', (string) $request->get_param( 'variations' ) ) ) as $pair ) {
			list( $product_id, $variation_id ) = array_map( 'absint', explode( ':', $pair ) );
			$by_product[ $product_id ][]       = $variation_id;
		}
		$currency = self::dispatch( '/wc/v3/data/currencies/current', array() );
		if ( is_wp_error( $currency ) ) {
			return $currency;
		}
		$answer = array(
			'currency'   => $currency['code'],
			'products'   => array(),
			'variations' => array(),
		);
		// An empty include= would list every product: only ids asked for are read.
		if ( ! empty( $product_ids ) ) {
			$products = self::dispatch( '/wc/v3/products', self::include_query( $product_ids ) );
			if ( is_wp_error( $products ) ) {
				return $products;
			}
			foreach ( $products as $product ) {
				$answer['products'][] = array(
					'id'           => $product['id'],
					'name'         => $product['name'],
					'type'         => $product['type'],
					'price'        => $product['price'],
					'stock_status' => $product['stock_status'],
					'images'       => array_slice( $product['images'], 0, 1 ),
					'variations'   => $product['variations'],
				);
			}
		}
		foreach ( $by_product as $product_id => $variation_ids ) {
			$variations = self::dispatch( '/wc/v3/products/' . $product_id . '/variations', self::include_query( $variation_ids ) );
			// A product the store does not have has none of them, as an unknown id is left out of include=.
			if ( is_wp_error( $variations ) && 'woocommerce_rest_product_invalid_id' === $variations->get_error_code() ) {
				continue;
			}
			if ( is_wp_error( $variations ) ) {
				return $variations;
			}
			foreach ( $variations as $variation ) {
				$answer['variations'][] = array(
					'product_id'   => $product_id,
					'id'           => $variation['id'],
					'price'        => $variation['price'],
					'stock_status' => $variation['stock_status'],
					'image'        => $variation['image'],
					'attributes'   => $variation['attributes'],
				);
			}
		}
		return rest_ensure_response( $answer );
	}

	/**
	 * The query of a collection read of these ids, in one page.
	 *
	 * @param int[] $ids Ids.
	 * @return array
	 */
	private static function include_query( array $ids ) {
		return array(
			'include'  => array_values( array_unique( $ids ) ),
			'per_page' => 100,
		);
	}

	/**
	 * A GET of a WooCommerce REST route inside this request, as the current user: its data, or its error.
	 *
	 * @param string $route Route, e.g. /wc/v3/products.
	 * @param array  $query Query parameters.
	 * @return array|WP_Error
	 */
	private static function dispatch( $route, array $query ) {
		$inner = new WP_REST_Request( 'GET', $route );
		$inner->set_query_params( $query );
		$response = rest_do_request( $inner );
		if ( $response->is_error() ) {
			return $response->as_error();
		}
		return $response->get_data();
	}

	/**
	 * The store's policy pages, for the links at the foot of the hosted checkout: WooCommerce's terms and conditions
	 * page (Settings → Advanced → Page setup, woocommerce_terms_page_id), WordPress's privacy policy page (Settings →
	 * Privacy, wp_page_for_privacy_policy) and WooCommerce's "Refund and Returns Policy" page (created as a draft when
	 * WooCommerce is installed, woocommerce_refund_returns_page_id). WooCommerce's REST settings answer only the terms
	 * page, as an id (v3: a select of page titles; v2 leaves it out), and no permalink; the other two are no REST setting.
	 * Only a published page is listed (a draft, a private or a trashed page, or one that is gone, is not a page a shopper
	 * can open: as get_privacy_policy_url() decides for the privacy page), with its title as the site shows it and its
	 * permalink.
	 *
	 * @return WP_REST_Response|array
	 */
	public static function policies() {
		$pages    = array(
			'terms'   => wc_terms_and_conditions_page_id(),
			'privacy' => (int) get_option( 'wp_page_for_privacy_policy', 0 ),
			'refund'  => wc_get_page_id( 'refund_returns' ),
		);
		$policies = array();
		foreach ( $pages as $type => $page_id ) {
			if ( $page_id <= 0 || 'publish' !== get_post_status( $page_id ) ) {
				continue;
			}
			$url = get_permalink( $page_id );
			if ( ! $url ) {
				continue;
			}
			$policies[] = array(
				'type'    => $type,
				'page_id' => (int) $page_id,
				// As the site shows it (the_title filters), as plain text: get_the_title() answers HTML ("&#038;").
				'title'   => html_entity_decode( wp_strip_all_tags( get_the_title( $page_id ) ), ENT_QUOTES, 'UTF-8' ),
				'url'     => $url,
			);
		}
		return rest_ensure_response( array( 'policies' => $policies ) );
	}

	/**
	 * The order carrying the token in its meta. wc_get_orders with meta_key/meta_value works on both order
	 * storages (HPOS remaps them to a meta query; posts storage passes them to WP_Query, which a meta_query
	 * argument would not reach). Every order status WooCommerce lists (wc_get_order_statuses) except the block
	 * checkout's draft, and never the trash: a checkout-draft is what a create that failed half-way leaves behind
	 * (an unknown coupon: WooCommerce's new_draft_order_id), a trashed order was thrown away, and answering either
	 * as "the order" would make the service take an unpaid leftover for the paid order it must create.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return array|WP_Error
	 */
	public static function find_by_session( $request ) {
		$token    = (string) $request->get_param( 'token' );
		$statuses = array_values( array_diff( array_keys( wc_get_order_statuses() ), array( 'wc-checkout-draft' ) ) );
		$ids      = wc_get_orders(
			array(
				'type'       => 'shop_order',
				'limit'      => 2,
				'return'     => 'ids',
				'status'     => $statuses,
				'meta_key'   => HOSTED_CHECKOUT_SESSION_META, // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_key
				'meta_value' => $token, // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_value
				'orderby'    => 'ID',
				'order'      => 'ASC',
			)
		);
		if ( empty( $ids ) ) {
			return self::not_found();
		}
		if ( count( $ids ) > 1 ) {
			return new WP_Error(
				'hc_order_ambiguous',
				__( 'More than one order carries this session token.', 'hosted-checkout-connector' ),
				array(
					'status'    => 409,
					'order_ids' => array_map( 'intval', $ids ),
				)
			);
		}
		$order = wc_get_order( $ids[0] );
		if ( ! $order ) {
			return self::not_found();
		}
		$gmt = static function ( $date ) {
			return $date ? gmdate( 'Y-m-d\TH:i:s', $date->getTimestamp() ) : null;
		};
		return rest_ensure_response(
			array(
				'found'            => true,
				'order_id'         => $order->get_id(),
				'number'           => (string) $order->get_order_number(),
				'status'           => $order->get_status(),
				'order_key'        => $order->get_order_key(),
				'date_created_gmt' => $gmt( $order->get_date_created() ),
				'date_paid_gmt'    => $gmt( $order->get_date_paid() ),
				'total'            => wc_format_decimal( $order->get_total(), wc_get_price_decimals() ),
				'currency'         => $order->get_currency(),
				'transaction_id'   => $order->get_transaction_id(),
			)
		);
	}

	/**
	 * The 404 the service reads as "no order yet".
	 *
	 * @return WP_Error
	 */
	private static function not_found() {
		return new WP_Error( 'hc_order_not_found', __( 'No order carries this session token.', 'hosted-checkout-connector' ), array( 'status' => 404 ) );
	}
}
