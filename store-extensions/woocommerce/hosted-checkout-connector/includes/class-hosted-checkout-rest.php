<?php
/**
 * The plugin's REST routes: the service finds the order of a checkout session (exactly-once creates), and reads
 * the store's policy pages its checkout page links to.
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

	/**
	 * Registers GET /wc-hosted-checkout/v1/orders/by-session/<token> and GET /wc-hosted-checkout/v1/policies.
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
