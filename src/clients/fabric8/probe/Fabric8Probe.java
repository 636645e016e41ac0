// fabric8-probe: the fabric8 kubernetes-client (Java) as a client of an exec
// credential plugin, for credprov's client matrix (src/clients/fabric8/).
//
// It configures the client as most programs do, by auto-configuration from
// the kubeconfig that the `kubeconfig` system property names (what KUBECONFIG
// sets), on the first request: fabric8 runs the plugin while it reads the
// kubeconfig, so a plugin failure is that request's error. Then it answers
// requests read from stdin, one JSON line each, until stdin closes:
//
//   in:  {"path":"/version"}
//   out: {"status":200} or {"status":401,"error":"<fabric8's warnings>"} or {"error":"…"}
//
// Each request goes through the client's own HTTP client (client.getHttpClient():
// the TokenRefreshInterceptor that re-runs the plugin and retries a 401 is
// there). fabric8 logs a plugin answer it cannot use as a warning and sends
// the request without a credential; those warnings are captured per request
// and returned as `error` beside the status the server gave.
//
// No --terminal: fabric8 starts its plugin with ProcessBuilder's default stdin,
// a pipe it never writes, so no terminal can reach the plugin.
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;

public final class Fabric8Probe {
  /** The client's log records of the current request (WARNING and above). */
  static final class Captured extends Handler {
    final List<String> lines = new ArrayList<>();

    @Override
    public synchronized void publish(LogRecord r) {
      if (r.getLevel().intValue() < Level.WARNING.intValue()) return;
      String msg = r.getMessage();
      Object[] params = r.getParameters();
      // SLF4J's {} placeholders arrive unformatted through slf4j-jdk14 only when there are parameters.
      if (params != null) for (Object p : params) msg = msg.replaceFirst("\\{\\}", Matcher.quoteReplacement(String.valueOf(p)));
      if (r.getThrown() != null) msg += ": " + r.getThrown();
      lines.add(msg);
    }

    synchronized String take() {
      String s = String.join("; ", lines);
      lines.clear();
      return s;
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  public static void main(String[] args) throws Exception {
    String kubeconfig = null;
    String context = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--kubeconfig") && i + 1 < args.length) kubeconfig = args[++i];
      else if (args[i].equals("--context") && i + 1 < args.length) context = args[++i];
    }
    // The protocol owns the real stdout; anything the client prints goes to stderr.
    PrintStream protocol = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    if (kubeconfig == null) fatal(protocol, "--kubeconfig is required");
    System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, kubeconfig);

    Captured captured = new Captured();
    Logger root = Logger.getLogger("");
    for (Handler h : root.getHandlers()) h.setLevel(Level.WARNING);
    root.addHandler(captured);

    ObjectMapper json = new ObjectMapper();
    protocol.println(json.createObjectNode().put("ready", "fabric8").put("version", clientVersion()));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    KubernetesClient client = null;
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      captured.take();
      String path;
      try {
        JsonNode p = json.readTree(line).get("path");
        if (p == null || !p.isString()) throw new IllegalArgumentException("no path");
        path = p.asString();
      } catch (Exception e) {
        protocol.println(json.createObjectNode().put("error", "fabric8-probe: bad request line: " + e.getMessage()));
        continue;
      }
      Integer status = null;
      String error = null;
      try {
        if (client == null) {
          // As `new KubernetesClientBuilder().build()` does: auto-configuration runs the plugin.
          Config config = Config.autoConfigure(context);
          client = new KubernetesClientBuilder().withConfig(config).build();
        }
        HttpClient http = client.getHttpClient();
        String base = client.getMasterUrl().toString().replaceAll("/+$", "");
        HttpRequest request = http.newHttpRequestBuilder().uri(base + path).build();
        HttpResponse<String> response = http.sendAsync(request, String.class).get(60, TimeUnit.SECONDS);
        status = response.code();
      } catch (Exception e) {
        Throwable t = e;
        while (t.getCause() != null && t != t.getCause()) t = t.getCause();
        error = t.getClass().getSimpleName() + ": " + t.getMessage();
      }
      String logged = captured.take();
      if (!logged.isEmpty()) error = error == null ? logged : logged + "; " + error;
      ObjectNode out = json.createObjectNode();
      if (status != null) out.put("status", status);
      if (error != null) out.put("error", error);
      protocol.println(out);
    }
    if (client != null) client.close();
    System.exit(0);
  }

  /** The kubernetes-client-api version on the class path, from its Maven metadata. */
  static String clientVersion() {
    try (InputStream s = Config.class.getResourceAsStream(
        "/META-INF/maven/io.fabric8/kubernetes-client-api/pom.properties")) {
      Properties p = new Properties();
      if (s != null) p.load(s);
      return p.getProperty("version", "unknown");
    } catch (Exception e) {
      return "unknown";
    }
  }

  static void fatal(PrintStream protocol, String msg) {
    protocol.println(new ObjectMapper().createObjectNode().put("fatal", msg));
    System.err.println("fabric8-probe: " + msg);
    System.exit(2);
  }
}
