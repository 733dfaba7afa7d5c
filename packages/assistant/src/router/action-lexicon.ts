/**
 * Action words in English, Spanish, German and French, in accent-folded lower case. A phrase is
 * words separated by spaces; "*" stands for any one word ("get rid of *", "brauche * nicht mehr").
 */
export type Action = "create" | "delete" | "stop" | "start" | "restart" | "list" | "check" | "change" | "keep";

export const ACTION_LEXICON: Record<Action, string[]> = {
  create: [
    "get * running", "get * up", "set * up", "spin * up", "stand * up", "bring * up", "put * up",
    "create", "make", "deploy", "install", "provision", "spin up", "spin", "set up", "setup", "stand up", "bring up", "launch", "build",
    "add", "instantiate", "roll out", "new",
    "crear", "crea", "creame", "despliega", "desplegar", "instala", "instalar", "levanta", "levantar", "monta", "montar",
    "erstelle", "erstellen", "erzeuge", "erzeugen", "anlegen", "lege", "installiere", "installieren", "deploye", "deployen", "aufsetzen",
    "setze", "bereitstellen", "stelle", "baue", "richte", "einrichten",
    "cree", "creer", "creez", "deploie", "deployer", "deployez", "installe", "installer", "installez", "monte", "monter", "lance", "lancer",
    "provisionne", "provisionner", "mets en place",
  ],
  delete: [
    "delete", "remove", "destroy", "decommission", "tear down", "teardown", "tear * down", "get rid of", "uninstall", "deprovision",
    "take down", "clean up", "wipe out", "retire", "drop", "erase", "zap", "terminate", "delete", "dismantle", "scrap", "nuke", "purge", "trash", "axe", "kill off", "dispose of",
    "no longer need", "no longer needed", "no longer want", "don't need * any more", "dont need * any more", "do not need * any more", "blow away", "don't need * anymore", "dont need * anymore", "do not need * anymore", "not needed anymore",
    "borra", "borrar", "elimina", "eliminar", "quita", "quitar", "destruye", "destruir", "suprime", "suprimir", "ya no necesito",
    "losche", "loschen", "loesche", "loeschen", "entferne", "entfernen", "zerstore", "zerstoren", "abbauen", "baue * ab", "reisse * ab",
    "brauche * nicht mehr", "wird nicht mehr gebraucht", "weg damit",
    "supprime", "supprimer", "supprimez", "efface", "effacer", "detruis", "detruire", "retire", "retirer", "demonte", "n'ai plus besoin",
  ],
  stop: [
    "stop", "shut down", "shutdown", "power off", "poweroff", "halt", "pause", "suspend", "turn off", "switch off",
    "deten", "detener", "parar", "apaga", "apagar", "stoppe", "stoppen", "halte * an", "fahre * herunter", "herunterfahren",
    "schalte * aus", "ausschalten", "arrete", "arreter", "eteins", "eteindre", "mets en pause",
  ],
  start: ["start", "boot", "power on", "turn on", "resume", "unpause", "arranca", "enciende", "starte", "starten", "demarre", "allume"],
  restart: ["restart", "reboot", "reinicia", "reiniciar", "neu starten", "starte * neu", "redemarre", "redemarrer"],
  list: [
    "list", "show", "display", "enumerate", "lista", "listar", "muestra", "mostrar", "liste", "zeige", "zeig", "auflisten", "lister",
    "affiche", "afficher", "montre",
  ],
  check: [
    "check", "verify", "validate", "audit", "inspect", "diagnose", "make sure", "health check", "healthcheck",
    "comprueba", "comprobar", "verifica", "revisa", "revisar", "prufe", "pruefe", "uberprufe", "kontrolliere", "verifie", "verifier", "controle",
  ],
  change: [
    "upgrade", "update", "patch", "scale", "resize", "migrate", "backup", "back up", "restore", "snapshot", "clone", "rename", "move",
    "rotate", "renew", "reset", "login", "log in", "ssh into", "connect to", "open a console", "actualiza", "aktualisiere", "mets a jour",
  ],
  keep: ["keep", "leave", "conserva", "manten", "behalte", "lass", "garde", "laisse"],
};

/** Words that negate the action or value that follows them within the clause. */
export const NEGATORS = [
  "don't", "dont", "do not", "does not", "doesn't", "not", "never", "no need to", "instead of", "rather than", "without", "except",
  "skip", "skipping", "exclude", "excluding", "apart from", "other than", "sauf", "excepto", "menos", "ausser",
  "no", "nunca", "sin", "nicht", "kein", "keine", "keinen", "nie", "ohne", "ne", "n'", "pas", "jamais", "sans",
];

/** Words that end a negation's scope and start a new clause. */
export const CLAUSE_BREAKS = [
  "but", "just", "only", "instead", "rather", "actually", "then", "and then", "so", "and", "after", "before", "once", "i meant", "i mean",
  "pero", "sino", "solo", "y", "despues", "aber", "sondern", "nur", "und", "danach", "mais", "juste", "seulement", "plutot", "et", "apres",
];

/** Phrases that take back everything asked before them. */
export const RETRACTIONS = [
  "actually no", "actually, no", "no wait", "wait no", "scratch that", "never mind", "nevermind", "forget it", "forget that", "cancel that",
  "on second thought", "on second thoughts", "mejor no", "olvidalo", "olvida eso", "doch nicht", "vergiss es", "lieber nicht",
  "en fait non", "laisse tomber", "oublie ca", "finalement non",
];

/** Words that open a question (after an optional polite prefix). */
export const INTERROGATIVES = [
  "which", "what", "how many", "how much", "is", "are", "did", "does", "do", "has", "have", "was", "were", "where", "when", "why", "who",
  "whether", "que", "cual", "cuales", "cuantas", "cuantos", "esta", "estan", "hay", "welche", "welcher", "wie", "ist", "sind", "hat",
  "haben", "wo", "wann", "was", "laeuft", "lauft", "quel", "quelle", "quels", "quelles", "combien", "est-ce", "ou",
];

/** A polite frame around a command ("can you", "please", "pourriez-vous"): not a question. */
export const POLITE_PREFIXES = [
  "can you", "could you", "would you", "will you", "can we", "could we", "can i", "could i", "may i", "please", "would you mind",
  "is it possible to", "is there a way to", "is there any way to", "are you able to", "would it be possible to", "i'd like you to", "puedes", "podrias", "puede", "kannst du", "konnen sie", "koennen sie", "konntest du", "pouvez-vous", "peux-tu",
  "pourriez-vous", "pourrais-tu", "tu peux", "vous pouvez",
];

/** Words of a question about the state of things (answered by a read-only check, never by a change). */
export const STATE_WORDS = [
  "running", "up", "down", "finished", "finish", "done", "complete", "completed", "succeed", "succeeded", "failed", "fail", "healthy",
  "working", "exist", "exists", "installed", "deployed", "status", "state", "alive", "reachable", "online", "offline", "broken", "ok",
  "okay", "there", "left", "happened", "happen", "doing", "funcionando", "corriendo", "activas", "activos", "ejecutandose", "laufend", "aktiv", "actives", "allumees", "en marche", "expire", "expiring", "have", "got", "laufen", "lauft", "laeuft", "fertig", "funcionan", "funciona",
  "tournent", "tourne", "marche", "fonctionne", "estado", "zustand", "etat",
];

/** A clause saying an earlier attempt failed: its values are not the ones to use. */
export const FAILURE_WORDS = ["failed", "didn't work", "did not work", "doesn't work", "does not work", "broke", "is broken", "was broken", "hat nicht funktioniert", "fallo", "a echoue"];

/** A clause that says what was meant instead of a negated request ("don't install harbor, I meant quay"). */
export const CORRECTIONS = ["i meant", "i mean", "meant", "make it", "rather", "instead", "use", "go with", "but", "just", "only", "sino", "sondern", "plutot", "mais"];
