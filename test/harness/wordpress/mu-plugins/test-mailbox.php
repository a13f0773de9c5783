<?php
/**
 * Test sites only (test/harness/wordpress.ts copies this into wp-content/mu-plugins): there is no sendmail here, so
 * every email WordPress or WooCommerce sends is written to wp-content/mailbox.jsonl instead (one JSON per line),
 * where a test can read it. Nothing else about the site is changed.
 *
 * @package HostedCheckoutConnector
 */

// phpcs:disable -- a test tool, not shipped.

add_filter(
	'pre_wp_mail',
	static function ( $short_circuit, $atts ) {
		$line = wp_json_encode(
			array(
				'to'      => $atts['to'],
				'subject' => $atts['subject'],
				'at'      => gmdate( 'c' ),
			)
		);
		file_put_contents( WP_CONTENT_DIR . '/mailbox.jsonl', $line . "\n", FILE_APPEND | LOCK_EX );
		return true;
	},
	10,
	2
);
