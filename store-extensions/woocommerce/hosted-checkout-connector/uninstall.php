<?php
/**
 * Uninstall: removes the plugin's own settings and state. Order meta stays: it is the merchant's record
 * of which checkout session each order came from.
 *
 * @package HostedCheckoutConnector
 */

if ( ! defined( 'WP_UNINSTALL_PLUGIN' ) ) {
	exit;
}

delete_option( 'hosted_checkout_service_url' );
delete_option( 'hosted_checkout_connection_key' );
delete_transient( 'hosted_checkout_backoff' );
