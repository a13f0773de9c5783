<?php
/**
 * What the real WooCommerce tier does to a WordPress site from PHP (there is no wp-cli here): install it, turn
 * WooCommerce on as a new shop gets it, fill the catalogue, make REST keys as WooCommerce's own "Add key" does.
 * Everything a shopper or merchant does goes over HTTP instead (test/harness/wordpress.ts); this is set-up only.
 *
 *   php ops.php <site folder> <command> < input.json   →   JSON on stdout
 *
 *   install               {title, admin: {user, password, email}}   WordPress itself (wp_install), pretty permalinks
 *   activate-woocommerce  {}                                         the plugin's activation (its installer runs)
 *   prepare-store         {manager: {user, password, email}}         what a new shop's first admin visit does (HPOS on),
 *                                                                    store settings, the catalogue, a shop manager
 *   create-key            {user, permissions, description}           a REST key → {consumerKey, consumerSecret, keyId}
 *   order-storage         {storage: 'hpos' | 'posts'}                where new orders go (HPOS or the posts table)
 *   options               {names: [...]}                             option values and whether each is autoloaded
 *   policy-pages          {publish: [privacy|refund], terms: title}  what the merchant does in wp-admin: publishes
 *                                                                    WordPress's privacy page and WooCommerce's refund
 *                                                                    page (both drafts on a new site), makes a terms
 *                                                                    page and chooses it → the page ids and statuses
 *
 * @package HostedCheckoutConnector
 */

// phpcs:disable -- a test tool, not shipped.

$hc_site    = $argv[1] ?? '';
$hc_command = $argv[2] ?? '';
$hc_input   = json_decode( (string) stream_get_contents( STDIN ), true );
if ( ! is_dir( $hc_site ) || ! is_array( $hc_input ) ) {
	fwrite( STDERR, "usage: php ops.php <site folder> <command> < input.json\n" );
	exit( 2 );
}

if ( 'install' === $hc_command ) {
	define( 'WP_INSTALLING', true );
}
require $hc_site . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';

function hc_out( $value ) {
	echo wp_json_encode( $value );
	exit( 0 );
}

function hc_fail( $message ) {
	fwrite( STDERR, $message . "\n" );
	exit( 1 );
}

switch ( $hc_command ) {
	case 'install':
		$admin = $hc_input['admin'];
		$result = wp_install( $hc_input['title'], $admin['user'], $admin['email'], true, '', $admin['password'] );
		if ( is_wp_error( $result ) ) {
			hc_fail( $result->get_error_message() );
		}
		update_option( 'permalink_structure', '/%postname%/' );
		update_option( 'blogdescription', '' );
		hc_out( array( 'userId' => $result['user_id'] ) );

	case 'activate-woocommerce':
		wp_set_current_user( 1 );
		$result = activate_plugin( 'woocommerce/woocommerce.php' );
		if ( is_wp_error( $result ) ) {
			hc_fail( $result->get_error_message() );
		}
		hc_out( array( 'active' => is_plugin_active( 'woocommerce/woocommerce.php' ) ) );

	case 'prepare-store':
		wp_set_current_user( 1 );
		// What the first admin page load of a new shop runs (admin_init): HPOS on for a new install, coming-soon mode on.
		WC_Install::newly_installed();
		// The first admin page after activation would go to WooCommerce's onboarding (a 30-second transient): it has been seen.
		delete_transient( '_wc_activation_redirect' );
		// A shop that is open for business: no coming-soon page for shoppers.
		update_option( 'woocommerce_coming_soon', 'no' );
		update_option( 'woocommerce_store_pages_only', 'no' );
		update_option( 'woocommerce_currency', 'EUR' );
		update_option( 'woocommerce_currency_pos', 'right_space' );
		update_option( 'woocommerce_price_thousand_sep', '.' );
		update_option( 'woocommerce_price_decimal_sep', ',' );
		update_option( 'woocommerce_price_num_decimals', '2' );
		update_option( 'woocommerce_default_country', 'DE:DE-BE' );
		update_option( 'woocommerce_store_address', 'Hauptstraße 1' );
		update_option( 'woocommerce_store_city', 'Berlin' );
		update_option( 'woocommerce_store_postcode', '10115' );
		update_option( 'woocommerce_calc_taxes', 'no' );
		update_option( 'woocommerce_allowed_countries', 'all' );
		// Cash on delivery, so the native checkout (the plugin's fallback) can take an order.
		update_option( 'woocommerce_cod_settings', array( 'enabled' => 'yes', 'title' => 'Cash on delivery' ) );
		flush_rewrite_rules( false );

		$simple = static function ( $name, $price, $sku ) {
			$p = new WC_Product_Simple();
			$p->set_name( $name );
			$p->set_sku( $sku );
			$p->set_regular_price( $price );
			$p->set_status( 'publish' );
			return $p->save();
		};
		$mug      = $simple( 'Ceramic Mug', '12.50', 'MUG-1' );
		$notebook = $simple( 'Dot Grid Notebook', '8.90', 'NOTE-1' );

		$attribute = new WC_Product_Attribute();
		$attribute->set_name( 'Size' );
		$attribute->set_options( array( 'S', 'M', 'L' ) );
		$attribute->set_visible( true );
		$attribute->set_variation( true );
		$shirt = new WC_Product_Variable();
		$shirt->set_name( 'Organic T-Shirt' );
		$shirt->set_attributes( array( $attribute ) );
		$shirt->set_status( 'publish' );
		$shirt_id   = $shirt->save();
		$variations = array();
		foreach ( array( 'S' => '19.00', 'M' => '19.00', 'L' => '21.00' ) as $size => $price ) {
			$v = new WC_Product_Variation();
			$v->set_parent_id( $shirt_id );
			$v->set_attributes( array( 'size' => $size ) );
			$v->set_regular_price( $price );
			$v->set_sku( 'TEE-' . $size );
			$v->set_status( 'publish' );
			$variations[ $size ] = $v->save();
		}
		WC_Product_Variable::sync( $shirt_id );

		$manager = $hc_input['manager'];
		$manager_id = wp_insert_user(
			array(
				'user_login' => $manager['user'],
				'user_pass'  => $manager['password'],
				'user_email' => $manager['email'],
				'role'       => 'shop_manager',
			)
		);
		if ( is_wp_error( $manager_id ) ) {
			hc_fail( $manager_id->get_error_message() );
		}
		hc_out(
			array(
				'hpos'     => get_option( 'woocommerce_custom_orders_table_enabled' ),
				'products' => array(
					'mug'      => $mug,
					'notebook' => $notebook,
					'shirt'    => array( 'id' => $shirt_id, 'variations' => $variations ),
				),
				'managerId' => $manager_id,
			)
		);

	case 'create-key':
		// As WooCommerce's "Add key" (WC_AJAX::update_api_key) stores one: the key hashed, the secret in clear.
		global $wpdb;
		$user = get_user_by( 'login', $hc_input['user'] );
		if ( ! $user ) {
			hc_fail( 'no user ' . $hc_input['user'] );
		}
		$consumer_key    = 'ck_' . wc_rand_hash();
		$consumer_secret = 'cs_' . wc_rand_hash();
		$wpdb->insert(
			$wpdb->prefix . 'woocommerce_api_keys',
			array(
				'user_id'         => $user->ID,
				'description'     => $hc_input['description'] ?? 'test',
				'permissions'     => $hc_input['permissions'],
				'consumer_key'    => wc_api_hash( $consumer_key ),
				'consumer_secret' => $consumer_secret,
				'truncated_key'   => substr( $consumer_key, -7 ),
			)
		);
		hc_out( array( 'consumerKey' => $consumer_key, 'consumerSecret' => $consumer_secret, 'keyId' => $wpdb->insert_id ) );

	case 'order-storage':
		// Which table WooCommerce keeps orders in: HPOS ('hpos', a new shop's default) or posts ('posts', older shops).
		// Written straight to the option: WooCommerce's own switch refuses while orders wait for a sync that this test
		// site does not run; new orders simply go to the chosen storage.
		global $wpdb;
		$wpdb->update( $wpdb->options, array( 'option_value' => 'hpos' === $hc_input['storage'] ? 'yes' : 'no' ), array( 'option_name' => 'woocommerce_custom_orders_table_enabled' ) );
		wp_cache_delete( 'alloptions', 'options' );
		wp_cache_delete( 'woocommerce_custom_orders_table_enabled', 'options' );
		hc_out( array( 'hpos' => $wpdb->get_var( "SELECT option_value FROM {$wpdb->options} WHERE option_name = 'woocommerce_custom_orders_table_enabled'" ) ) );

	case 'options':
		global $wpdb;
		$answer = array();
		foreach ( $hc_input['names'] as $name ) {
			$row = $wpdb->get_row( $wpdb->prepare( "SELECT option_value, autoload FROM {$wpdb->options} WHERE option_name = %s", $name ) );
			$answer[ $name ] = $row ? array( 'value' => maybe_unserialize( $row->option_value ), 'autoload' => $row->autoload ) : null;
		}
		hc_out( $answer );

	case 'policy-pages':
		wp_set_current_user( 1 );
		$ids = array(
			'privacy' => (int) get_option( 'wp_page_for_privacy_policy', 0 ),
			'refund'  => wc_get_page_id( 'refund_returns' ),
		);
		foreach ( $hc_input['publish'] ?? array() as $type ) {
			if ( $ids[ $type ] <= 0 ) {
				hc_fail( 'no ' . $type . ' page on this site' );
			}
			$done = wp_update_post( array( 'ID' => $ids[ $type ], 'post_status' => 'publish' ), true );
			if ( is_wp_error( $done ) ) {
				hc_fail( $done->get_error_message() );
			}
		}
		if ( isset( $hc_input['terms'] ) ) {
			$ids['terms'] = wp_insert_post( array( 'post_type' => 'page', 'post_title' => $hc_input['terms'], 'post_name' => 'terms', 'post_status' => 'publish', 'post_content' => 'Our terms.' ), true );
			if ( is_wp_error( $ids['terms'] ) ) {
				hc_fail( $ids['terms']->get_error_message() );
			}
			update_option( 'woocommerce_terms_page_id', $ids['terms'] );
		}
		$answer = array();
		foreach ( $ids as $type => $id ) {
			$answer[ $type ] = array( 'id' => $id, 'status' => $id > 0 ? get_post_status( $id ) : null );
		}
		hc_out( $answer );
}

hc_fail( 'unknown command ' . $hc_command );
