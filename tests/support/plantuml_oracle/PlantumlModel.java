// PlantUML's own model of each class diagram named on the command line, one JSON line each.
//
// The differential test (tests/plantuml/test_plantuml_oracle.py) compiles this against the pinned jar and
// runs it once for many files: the XMI export of the command line stops a batch at its first
// rejected file and carries no multiplicities without -txmi:star, which mixes in layout links.
// Here each file is read by PlantUML's own SourceStringReader, as its drawing does, and
// PlantUML's entities and links are written as they are, hidden ones marked.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

import net.atmp.CucaDiagram;
import net.sourceforge.plantuml.BlockUml;
import net.sourceforge.plantuml.SourceStringReader;
import net.sourceforge.plantuml.abel.Entity;
import net.sourceforge.plantuml.abel.Link;
import net.sourceforge.plantuml.core.Diagram;
import net.sourceforge.plantuml.error.PSystemError;

public final class PlantumlModel {
    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String file : args) {
            String text = new String(Files.readAllBytes(Paths.get(file)), StandardCharsets.UTF_8);
            out.setLength(0);
            out.append("{\"file\":").append(quote(file)).append(',');
            try {
                describe(text, out);
            } catch (Throwable failure) {
                out.append("\"verdict\":\"crashed\",\"error\":").append(quote(String.valueOf(failure)));
            }
            out.append('}');
            System.out.println(out);
        }
    }

    private static void describe(String text, StringBuilder out) {
        java.util.List<BlockUml> blocks = new SourceStringReader(text).getBlocks();
        if (blocks.isEmpty()) {
            out.append("\"verdict\":\"empty\"");
            return;
        }
        Diagram diagram = blocks.get(0).getDiagram();
        if (diagram instanceof PSystemError) {
            PSystemError error = (PSystemError) diagram;
            out.append("\"verdict\":\"rejected\",\"line\":")
                .append(error.getLineLocation().getPosition() + 1)
                .append(",\"error\":").append(quote(error.getFirstError().getError()));
            return;
        }
        if (!(diagram instanceof CucaDiagram)) {
            out.append("\"verdict\":\"other\",\"type\":").append(quote(diagram.getClass().getSimpleName()));
            return;
        }
        CucaDiagram cuca = (CucaDiagram) diagram;
        out.append("\"verdict\":\"accepted\",\"entities\":[");
        boolean first = true;
        for (Entity leaf : cuca.leafs()) {
            if (!first) out.append(',');
            first = false;
            out.append("{\"name\":").append(quote(leaf.getQuark().getName()))
                .append(",\"qualified\":").append(quote(leaf.getQuark().getQualifiedName()))
                .append(",\"type\":").append(quote(String.valueOf(leaf.getLeafType())))
                .append(",\"fields\":");
            lines(() -> leaf.getBodier().getFieldsToDisplay(), out);
            out.append(",\"methods\":");
            lines(() -> leaf.getBodier().getMethodsToDisplay(), out);
            out.append('}');
        }
        out.append("],\"links\":[");
        first = true;
        for (Link link : cuca.getLinks()) {
            if (!first) out.append(',');
            first = false;
            out.append("{\"from\":").append(quote(link.getEntity1().getQuark().getQualifiedName()))
                .append(",\"to\":").append(quote(link.getEntity2().getQuark().getQualifiedName()))
                .append(",\"from_type\":").append(quote(String.valueOf(link.getEntity1().getLeafType())))
                .append(",\"to_type\":").append(quote(String.valueOf(link.getEntity2().getLeafType())))
                .append(",\"q1\":").append(quote(link.getQuantifier1()))
                .append(",\"q2\":").append(quote(link.getQuantifier2()))
                .append(",\"decor1\":").append(quote(String.valueOf(link.getType().getDecor1())))
                .append(",\"decor2\":").append(quote(String.valueOf(link.getType().getDecor2())))
                .append(",\"style\":").append(quote(String.valueOf(link.getType().getStyle())))
                .append(",\"invisible\":").append(link.isInvis() || link.isHidden() || link.getType().isInvisible())
                .append('}');
        }
        out.append(']');
    }

    private static void lines(java.util.function.Supplier<Iterable<CharSequence>> body, StringBuilder out) {
        out.append('[');
        boolean first = true;
        Iterable<CharSequence> display;
        try {
            display = body.get();
        } catch (RuntimeException noBody) { // a link's point or a lollipop has none
            display = null;
        }
        if (display != null) {
            for (CharSequence line : display) {
                if (!first) out.append(',');
                first = false;
                out.append(quote(line.toString()));
            }
        }
        out.append(']');
    }

    private static String quote(String text) {
        if (text == null) return "null";
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') quoted.append('\\').append(c);
            else if (c < 0x20 || c == 0x2028 || c == 0x2029) quoted.append(String.format("\\u%04x", (int) c));
            else quoted.append(c);
        }
        return quoted.append('"').toString();
    }
}
