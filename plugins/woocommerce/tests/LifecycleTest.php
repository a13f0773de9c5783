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

	public function test_settings_keep_only_usable_values(): void {
		$this->assertSame( 'https://checkout.example', HC_Settings::sanitize_service_url( ' https://checkout.example/ ' ) );
		$this->assertSame( '', HC_Settings::sanitize_service_url( 'javascript:alert(1)' ) );
		$this->assertSame( 'ck_abcdef0123456789', HC_Settings::sanitize_key( 'ck_abcdef0123456789' ) );
		$this->assertSame( '', HC_Settings::sanitize_key( 'cs_secret_pasted_by_mistake' ) );
	}

	public function test_the_connection_test_checks_the_key_and_the_service(): void {
		$GLOBALS['hc_wp']['options'] = array( HC_OPTION_SERVICE_URL => 'https://checkout.example', HC_OPTION_CONNECTION_KEY => 'ck_known12345' );
		$this->assertFalse( HC_Settings::check()['ok'] );
		$GLOBALS['hc_wp']['keys'] = array( 'ck_known12345' => 'cs_x' );
		$GLOBALS['hc_wp']['http'] = static function ( $url ) {
			return array( 'response' => array( 'code' => 'https://checkout.example/health' === $url ? 200 : 404 ), 'body' => '{}' );
		};
		$this->assertTrue( HC_Settings::check()['ok'] );
		$GLOBALS['hc_wp']['http'] = static function () {
			return new WP_Error( 'http_request_failed', 'refused' );
		};
		$this->assertStringContainsString( 'refused', HC_Settings::check()['message'] );
	}

	public function test_uninstall_removes_the_plugins_state_only(): void {
		$GLOBALS['hc_wp']['options']    = array( HC_OPTION_SERVICE_URL => 'x', HC_OPTION_CONNECTION_KEY => 'y', 'blogname' => 'Shop' );
		$GLOBALS['hc_wp']['transients'] = array( HC_TRANSIENT_BACKOFF => 1 );
		define( 'WP_UNINSTALL_PLUGIN', 'hosted-checkout-connector/hosted-checkout-connector.php' );
		require dirname( __DIR__ ) . '/hosted-checkout-connector/uninstall.php';
		$this->assertSame( array( 'blogname' => 'Shop' ), $GLOBALS['hc_wp']['options'] );
		$this->assertSame( array(), $GLOBALS['hc_wp']['transients'] );
	}
}
