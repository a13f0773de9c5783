<?php
/**
 * Settings sanitizing, the connection test, and a clean uninstall.
 *
 * @package HostedCheckoutConnector
 */

use PHPUnit\Framework\TestCase;

final class LifecycleTest extends TestCase {

	protected function setUp(): void {
		hc_wp_reset();
	}

	public function test_usable_settings_are_saved(): void {
		$GLOBALS['hc_wp']['keys'] = array( 'ck_abcdef0123456789' => 'cs_x' );
		$this->assertSame( 'https://checkout.example', Hosted_Checkout_Settings::sanitize_service_url( ' https://checkout.example/ ' ) );
		$this->assertSame( 'https://checkout.example/base', Hosted_Checkout_Settings::sanitize_service_url( 'https://checkout.example/base/' ) );
		// Local testing: a service on this machine may be http.
		$this->assertSame( 'http://127.0.0.1:3000', Hosted_Checkout_Settings::sanitize_service_url( 'http://127.0.0.1:3000/' ) );
		$this->assertSame( 'ck_abcdef0123456789', Hosted_Checkout_Settings::sanitize_key( ' ck_abcdef0123456789 ' ) );
		$this->assertSame( '', Hosted_Checkout_Settings::sanitize_key( '' ) );
		$this->assertSame( array(), $GLOBALS['hc_wp']['settings_errors'] );
	}

	/** @dataProvider refused */
	public function test_a_value_that_cannot_work_is_refused_with_a_notice_and_the_saved_one_stays( $option, $input, $says ): void {
		$GLOBALS['hc_wp']['options'] = array( HOSTED_CHECKOUT_OPTION_SERVICE_URL => 'https://saved.example', HOSTED_CHECKOUT_OPTION_CONNECTION_KEY => 'ck_saved12345' );
		$sanitize = HOSTED_CHECKOUT_OPTION_SERVICE_URL === $option ? 'sanitize_service_url' : 'sanitize_key';
		$this->assertSame( $GLOBALS['hc_wp']['options'][ $option ], Hosted_Checkout_Settings::$sanitize( $input ) );
		$this->assertCount( 1, $GLOBALS['hc_wp']['settings_errors'] );
		$this->assertSame( array( $option, 'error' ), array( $GLOBALS['hc_wp']['settings_errors'][0]['setting'], $GLOBALS['hc_wp']['settings_errors'][0]['type'] ) );
		$this->assertStringContainsString( $says, $GLOBALS['hc_wp']['settings_errors'][0]['message'] );
	}

	public function refused(): array {
		return array(
			'a host without scheme'       => array( HOSTED_CHECKOUT_OPTION_SERVICE_URL, 'checkout.example.com', 'starting with https://' ),
			'http to another machine'     => array( HOSTED_CHECKOUT_OPTION_SERVICE_URL, 'http://checkout.example.com', 'it must start with https://' ),
			'javascript:'                 => array( HOSTED_CHECKOUT_OPTION_SERVICE_URL, 'javascript:alert(1)', 'was not saved' ),
			'a query string'              => array( HOSTED_CHECKOUT_OPTION_SERVICE_URL, 'https://checkout.example.com/?a=1', 'was not saved' ),
			'the secret instead'          => array( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY, 'cs_secret_pasted_by_mistake', 'starts with ck_' ),
			'a key of another store'      => array( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY, 'ck_notofthisstore1', 'not a REST API key of this store' ),
		);
	}

	public function test_what_the_merchant_typed_is_escaped_in_the_notice(): void {
		Hosted_Checkout_Settings::sanitize_service_url( '<script>alert(1)</script>' );
		$this->assertStringContainsString( '&lt;script&gt;', $GLOBALS['hc_wp']['settings_errors'][0]['message'] );
		$this->assertStringNotContainsString( '<script>', $GLOBALS['hc_wp']['settings_errors'][0]['message'] );
	}

	public function test_the_options_are_created_not_autoloaded_and_shop_managers_may_save_them(): void {
		$GLOBALS['hc_wp']['options'] = array( HOSTED_CHECKOUT_OPTION_SERVICE_URL => 'https://kept.example' );
		Hosted_Checkout_Settings::create_options();
		$this->assertSame( array( HOSTED_CHECKOUT_OPTION_CONNECTION_KEY => false ), $GLOBALS['hc_wp']['added_options'] );
		$this->assertSame( 'https://kept.example', get_option( HOSTED_CHECKOUT_OPTION_SERVICE_URL ) );
		$this->assertContains( array( 'Hosted_Checkout_Settings', 'create_options' ), $GLOBALS['hc_wp_boot_actions']['activate'] );
		// options.php asks manage_options unless the option page says otherwise; the page itself needs manage_woocommerce.
		$capability = $GLOBALS['hc_wp_boot_filters'][ 'option_page_capability_' . Hosted_Checkout_Settings::GROUP ];
		$this->assertSame( array( 'manage_woocommerce' ), array_map( static function ( $cb ) { return $cb( 'manage_options' ); }, $capability ) );
	}

	public function test_new_settings_or_a_connection_test_end_a_backoff(): void {
		Hosted_Checkout_Settings::register();
		$this->assertContains( array( 'Hosted_Checkout_Settings', 'end_backoff' ), $GLOBALS['hc_wp']['actions'][ 'update_option_' . HOSTED_CHECKOUT_OPTION_SERVICE_URL ] );
		$this->assertContains( array( 'Hosted_Checkout_Settings', 'end_backoff' ), $GLOBALS['hc_wp']['actions'][ 'update_option_' . HOSTED_CHECKOUT_OPTION_CONNECTION_KEY ] );
		set_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF, 1, 300 );
		add_filter( 'hosted_checkout_exit_after_redirect', static function () { return false; } );
		$GLOBALS['hc_wp']['http'] = static function () { return new WP_Error( 'http_request_failed', 'refused' ); };
		Hosted_Checkout_Settings::test_connection();
		$this->assertFalse( get_transient( HOSTED_CHECKOUT_TRANSIENT_BACKOFF ) );
	}

	public function test_the_page_has_unique_ids_and_prints_the_settings_notices(): void {
		$GLOBALS['hc_wp']['settings_errors'] = array( array( 'setting' => 'general', 'code' => 'settings_updated', 'message' => 'Settings saved.', 'type' => 'success' ) );
		ob_start();
		Hosted_Checkout_Settings::render();
		$html = ob_get_clean();
		$this->assertStringContainsString( 'Settings saved.', $html );
		preg_match_all( '/\sid="([^"]+)"/', $html, $ids );
		$this->assertSame( array_unique( $ids[1] ), $ids[1] );
		$this->assertContains( 'hc-test-connection', $ids[1] );
	}

	public function test_the_connection_test_checks_the_key_and_the_service(): void {
		$GLOBALS['hc_wp']['options'] = array( HOSTED_CHECKOUT_OPTION_SERVICE_URL => 'https://checkout.example', HOSTED_CHECKOUT_OPTION_CONNECTION_KEY => 'ck_known12345' );
		$this->assertFalse( Hosted_Checkout_Settings::check()['ok'] );
		$GLOBALS['hc_wp']['keys'] = array( 'ck_known12345' => 'cs_x' );
		$GLOBALS['hc_wp']['http'] = static function ( $url ) {
			return array( 'response' => array( 'code' => 'https://checkout.example/health' === $url ? 200 : 404 ), 'body' => '{}' );
		};
		$this->assertTrue( Hosted_Checkout_Settings::check()['ok'] );
		$GLOBALS['hc_wp']['http'] = static function () {
			return new WP_Error( 'http_request_failed', 'refused' );
		};
		$this->assertStringContainsString( 'refused', Hosted_Checkout_Settings::check()['message'] );
	}

	public function test_uninstall_removes_the_plugins_state_only(): void {
		$GLOBALS['hc_wp']['options']    = array( HOSTED_CHECKOUT_OPTION_SERVICE_URL => 'x', HOSTED_CHECKOUT_OPTION_CONNECTION_KEY => 'y', 'blogname' => 'Shop' );
		$GLOBALS['hc_wp']['transients'] = array( HOSTED_CHECKOUT_TRANSIENT_BACKOFF => 1 );
		define( 'WP_UNINSTALL_PLUGIN', 'hosted-checkout-connector/hosted-checkout-connector.php' );
		require dirname( __DIR__ ) . '/hosted-checkout-connector/uninstall.php';
		$this->assertSame( array( 'blogname' => 'Shop' ), $GLOBALS['hc_wp']['options'] );
		$this->assertSame( array(), $GLOBALS['hc_wp']['transients'] );
	}
}
