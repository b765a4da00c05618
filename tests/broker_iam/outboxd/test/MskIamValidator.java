// Test-only Kafka broker callback that accepts MSK IAM style OAUTHBEARER tokens the way
// Amazon MSK does: it decodes the base64url presigned URL, recomputes its SigV4 signature with
// the test secret and refuses tampered, expired, future-dated and wrong-region tokens. It
// stands in for MSK in tests/broker_iam/run; it is not a production authorizer.
//
// Broker config (JAAS options of the listener's OAuthBearerLoginModule):
//   accessKeyId="..." secretKey="..." region="us-east-1"
// Command line (the same checks, for the negative cases): java ... MskIamValidator verify
// ACCESS_KEY_ID SECRET REGION TOKEN [NOW], and ... sign ACCESS_KEY_ID SECRET REGION AMZ_DATE to
// make a token as the signer would.
package outboxd.test;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerExtensionsValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallback;

public class MskIamValidator implements AuthenticateCallbackHandler {
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private String accessKeyId;
  private String secretKey;
  private String region;

  @Override
  public void configure(Map<String, ?> configs, String mechanism,
                        List<AppConfigurationEntry> entries) {
    Map<String, ?> options = entries.get(0).getOptions();
    accessKeyId = (String) options.get("accessKeyId");
    secretKey = (String) options.get("secretKey");
    region = (String) options.get("region");
  }

  @Override
  public void close() {}

  @Override
  public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
    for (Callback callback : callbacks) {
      if (callback instanceof OAuthBearerValidatorCallback validator) {
        try {
          long expiresMs = verify(accessKeyId, secretKey, region, validator.tokenValue(),
                                  Instant.now());
          validator.token(token(validator.tokenValue(), expiresMs));
          System.err.println("MskIamValidator accepted a token expiring at "
                             + Instant.ofEpochMilli(expiresMs));
        } catch (IllegalArgumentException e) {
          validator.error("invalid_token", null, null);
          System.err.println("MskIamValidator refused a token: " + e.getMessage());
        }
      } else if (callback instanceof OAuthBearerExtensionsValidatorCallback extensions) {
        extensions.inputExtensions().map().keySet().forEach(extensions::valid);
      } else {
        throw new UnsupportedCallbackException(callback);
      }
    }
  }

  // The token's expiry in ms since the epoch; IllegalArgumentException says why it is refused.
  static long verify(String keyId, String secret, String region, String token, Instant now) {
    String url;
    try {
      url = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not base64url: " + e.getMessage());
    }
    String host = "kafka." + region + ".amazonaws.com";
    String prefix = "https://" + host + "/?";
    if (!url.startsWith(prefix)) throw new IllegalArgumentException("not for " + host);
    Map<String, String> params = new TreeMap<>();
    for (String pair : url.substring(prefix.length()).split("&")) {
      int eq = pair.indexOf('=');
      require(eq > 0, "malformed query");
      params.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
    }
    require("kafka-cluster:Connect".equals(params.get("Action")), "Action is not Connect");
    String date = params.get("X-Amz-Date");
    require(date != null && params.containsKey("X-Amz-Expires"), "no X-Amz-Date or -Expires");
    Instant signed = AMZ_DATE.parse(date, Instant::from);
    long expiresMs = signed.plusSeconds(Long.parseLong(params.get("X-Amz-Expires"))).toEpochMilli();
    require(now.toEpochMilli() < expiresMs, "expired");
    require(signed.isBefore(now.plusSeconds(300)), "signed in the future");
    String scope = date.substring(0, 8) + "/" + region + "/kafka-cluster/aws4_request";
    require((keyId + "/" + scope).equals(params.get("X-Amz-Credential")), "wrong credential scope");
    String signature = params.remove("X-Amz-Signature");
    params.remove("User-Agent");  // Added after signing, as MSK's signers do.
    require(sign(secret, host, params, date, region).equals(signature), "signature mismatch");
    return expiresMs;
  }

  static String sign(String secret, String host, Map<String, String> params, String date,
                     String region) {
    StringBuilder query = new StringBuilder();
    for (Map.Entry<String, String> e : new TreeMap<>(params).entrySet()) {
      if (query.length() > 0) query.append('&');
      query.append(encode(e.getKey())).append('=').append(encode(e.getValue()));
    }
    String canonical = "GET\n/\n" + query + "\nhost:" + host + "\n\nhost\n" + hex(sha256(""));
    String scope = date.substring(0, 8) + "/" + region + "/kafka-cluster/aws4_request";
    String toSign = "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + hex(sha256(canonical));
    byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date.substring(0, 8));
    for (String part : new String[] {region, "kafka-cluster", "aws4_request"}) key = hmac(key, part);
    return hex(hmac(key, toSign));
  }

  static String makeToken(String keyId, String secret, String region, String date) {
    String host = "kafka." + region + ".amazonaws.com";
    Map<String, String> params = new TreeMap<>();
    params.put("Action", "kafka-cluster:Connect");
    params.put("X-Amz-Algorithm", "AWS4-HMAC-SHA256");
    params.put("X-Amz-Credential", keyId + "/" + date.substring(0, 8) + "/" + region
                                       + "/kafka-cluster/aws4_request");
    params.put("X-Amz-Date", date);
    params.put("X-Amz-Expires", "900");
    params.put("X-Amz-SignedHeaders", "host");
    StringBuilder url = new StringBuilder("https://" + host + "/?");
    params.forEach((k, v) -> url.append(encode(k)).append('=').append(encode(v)).append('&'));
    url.append("X-Amz-Signature=").append(sign(secret, host, params, date, region));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(
        url.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static OAuthBearerToken token(String value, long expiresMs) {
    return new OAuthBearerToken() {
      public String value() { return value; }
      public Set<String> scope() { return Set.of(); }
      public long lifetimeMs() { return expiresMs; }
      public String principalName() { return "msk-iam-user"; }
      public Long startTimeMs() { return null; }
    };
  }

  private static void require(boolean condition, String why) {
    if (!condition) throw new IllegalArgumentException(why);
  }

  private static String decode(String text) {
    return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static String encode(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '-' || c == '_' || c == '.' || c == '~') {
        out.append(c);
      } else {
        out.append(String.format("%%%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] hmac(byte[] key, String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (byte b : bytes) out.append(String.format("%02x", b & 0xff));
    return out.toString();
  }

  public static void main(String[] args) {
    if (args.length == 5 && args[0].equals("sign")) {
      System.out.println(makeToken(args[1], args[2], args[3], args[4]));
      return;
    }
    if ((args.length != 5 && args.length != 6) || !args[0].equals("verify")) {
      System.err.println(
          "usage: MskIamValidator verify KEY_ID SECRET REGION TOKEN [NOW, ISO 8601]\n"
          + "       MskIamValidator sign KEY_ID SECRET REGION AMZ_DATE");
      System.exit(2);
    }
    try {
      Instant now = args.length == 6 ? Instant.parse(args[5]) : Instant.now();
      verify(args[1], args[2], args[3], args[4], now);
      System.out.println("valid");
    } catch (IllegalArgumentException e) {
      System.out.println("refused: " + e.getMessage());
      System.exit(1);
    }
  }
}
